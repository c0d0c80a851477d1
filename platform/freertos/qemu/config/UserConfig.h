/* Included by freertos-next's FreeRTOSConfig.h (freertos-build's user_config_dir).
 *
 * Two notification slots per task: antpool's pool signals use slot 1, leaving
 * slot 0 to stream and message buffers, as the port's README recommends. */
#define configTASK_NOTIFICATION_ARRAY_ENTRIES 2

/* antpool-freertos checks that the scheduler runs before a pool blocks a task. */
#define INCLUDE_xTaskGetSchedulerState 1

/* Start the 32-bit tick 60 ticks before it wraps, so that the pool's clock,
 * its expiry and its timed waits all cross the wrap during the demo. */
#define configINITIAL_TICK_COUNT ((TickType_t) (0xFFFFFFFFUL - 60UL))
