/* The ThreadX configuration of antpool-threadx's tests on the Linux port
 * (included through TX_INCLUDE_USER_DEFINE_FILE; build.rs).
 *
 * A 1 kHz tick, as the FreeRTOS simulator's: the pool's expiry and
 * timeouts are whole ticks, and the port kit's checks are written in
 * milliseconds. The Linux port's timer thread ticks at this rate, and
 * antpool-threadx reads it (csrc/antpool_threadx.c). */
#define TX_TIMER_TICKS_PER_SECOND 1000UL
