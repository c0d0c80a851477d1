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

/* The Cortex-M33 (ARMv8-M mainline, mps2-an505): the ARM_CM33_NTZ port with
 * the FPU on, and FreeRTOS alone in the secure state (no TrustZone split, no
 * MPU, no MVE). Without these the port does not build. */
#if defined(__ARM_ARCH_8M_MAIN__)
#define configENABLE_FPU 1
#define configENABLE_MPU 0
#define configENABLE_TRUSTZONE 0
#define configENABLE_MVE 0
#define configRUN_FREERTOS_SECURE_ONLY 1
#endif

/* The Cortex-M0 (ARMv6-M, the micro:bit's nRF51822): the ARM_CM0 port, which
 * also serves the Cortex-M0+ with an MPU, asks whether to use one. */
#if defined(__ARM_ARCH_6M__)
#define configENABLE_MPU 0
#endif

/* RISC-V on QEMU virt: the CLINT's mtime and the hart's mtimecmp. The
 * interrupt stack comes from the link script (__freertos_irq_stack_top). */
#if defined(__riscv)
#define configMTIME_BASE_ADDRESS (0x0200BFF8UL)
#define configMTIMECMP_BASE_ADDRESS (0x02004000UL)
#endif
