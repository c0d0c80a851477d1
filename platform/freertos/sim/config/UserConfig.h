/* Included by freertos-next's FreeRTOSConfig.h (freertos-build's user_config_dir).
 *
 * Two notification slots per task: antpool's pool signals use slot 1, leaving
 * slot 0 to stream and message buffers, as the port's README recommends. */
#define configTASK_NOTIFICATION_ARRAY_ENTRIES 2

/* antpool-freertos checks that the scheduler runs before a pool blocks a task. */
#define INCLUDE_xTaskGetSchedulerState 1

/* antpool-freertos's StaticSpawner makes its slot tasks with xTaskCreateStatic
 * (alongside the heap's xTaskCreate), and the kernel provides the idle task's
 * memory itself (V11). */
#define configSUPPORT_STATIC_ALLOCATION 1
#define configKERNEL_PROVIDED_STATIC_MEMORY 1

/* A simulated interrupt for the tests (the port kit's interrupt check): the
 * Posix port's tick is a signal handler on the running task's thread, and
 * this trace hook runs inside it, at the start of every xTaskIncrementTick,
 * even while the scheduler is suspended (csrc/posix_glue.c). */
void antpool_sim_tick_interrupt(void);
#define traceTASK_INCREMENT_TICK(xTickCount) antpool_sim_tick_interrupt()

/* The simulator test aborts a pool signal's timed wait from another task:
 * the wait must go on for what is left (Signal rule 2). */
#define INCLUDE_xTaskAbortDelay 1
