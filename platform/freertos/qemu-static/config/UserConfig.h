/* Included by freertos-next's FreeRTOSConfig.h (freertos-build's user_config_dir).
 *
 * No heap at all: every task is made with xTaskCreateStatic in memory the
 * program owns (antpool-freertos's TaskSlots for the pool's workers, static
 * buffers in main.rs for the controller and the watchdog), and the kernel
 * provides its idle task's memory itself (V11). No heap_x.c is compiled
 * (build.rs), so nothing can call pvPortMalloc: CI checks the ELF has none. */
#define configSUPPORT_DYNAMIC_ALLOCATION 0
#define configSUPPORT_STATIC_ALLOCATION 1
#define configKERNEL_PROVIDED_STATIC_MEMORY 1

/* Two notification slots per task: antpool's pool signals (and the slot tasks
 * between jobs) use slot 1, leaving slot 0 to stream and message buffers. */
#define configTASK_NOTIFICATION_ARRAY_ENTRIES 2

/* antpool-freertos checks that the scheduler runs before a pool blocks a task. */
#define INCLUDE_xTaskGetSchedulerState 1

/* The Cortex-M0 (the micro:bit's nRF51822): the ARM_CM0 port asks whether
 * to use an MPU (a Cortex-M0+ may have one). */
#if defined(__ARM_ARCH_6M__)
#define configENABLE_MPU 0
#endif

/* Start the 32-bit tick 60 ticks before it wraps, so that the pool's clock,
 * its expiry and its timed waits all cross the wrap during the demo. */
#define configINITIAL_TICK_COUNT ((TickType_t) (0xFFFFFFFFUL - 60UL))
