/* The ThreadX configuration of antpool-threadx's QEMU demo (included
 * through TX_INCLUDE_USER_DEFINE_FILE; build.rs).
 *
 * A 1 kHz tick: SysTick (mps2-an385) or the nRF51's TIMER1 (micro:bit) is
 * set up for this rate in src/board/, and antpool-threadx reads it
 * (csrc/antpool_threadx.c) for the pool's clock and timeouts. */
#define TX_TIMER_TICKS_PER_SECOND 1000UL

/* Timeouts and sleeps are processed in the tick interrupt, not in a timer
 * thread: one thread and its 1 KiB stack fewer, which the micro:bit's
 * 16 KiB of RAM feel. */
#define TX_TIMER_PROCESS_IN_ISR
