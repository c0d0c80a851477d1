/* antpool-threadx: what the crate needs to know about your ThreadX build.
 *
 * Compile this file with your kernel: the same tx_api.h, tx_port.h,
 * tx_user.h and -D options as the kernel's own files. The crate reads the
 * sizes of the control blocks it reserves memory for (they depend on the
 * configuration and the port), the tick rate, and asks where the caller
 * runs (on Cortex-M that is the IPSR register, which only the port's header
 * knows how to read). Without this file the program does not link
 * (antpool_tx_thread_size and the rest undefined). */
#include <stddef.h>

#include "tx_api.h"
#include "tx_initialize.h"
#include "tx_thread.h"

/* The control blocks ThreadSlots and WaitSlots reserve memory for. */
const size_t antpool_tx_thread_size = sizeof(TX_THREAD);
const size_t antpool_tx_thread_align = _Alignof(TX_THREAD);
const size_t antpool_tx_semaphore_size = sizeof(TX_SEMAPHORE);
const size_t antpool_tx_semaphore_align = _Alignof(TX_SEMAPHORE);

/* ULONG is 32 bits on every port the crate knows (the Linux port on x86_64
 * included); the crate checks it. */
const size_t antpool_tx_ulong_size = sizeof(ULONG);

/* The tick rate (the pool's clock and timeouts), the number of priorities
 * and the smallest stack tx_thread_create accepts. */
const ULONG antpool_tx_ticks_per_second = TX_TIMER_TICKS_PER_SECOND;
const unsigned int antpool_tx_max_priorities = TX_MAX_PRIORITIES;
const size_t antpool_tx_minimum_stack = TX_MINIMUM_STACK;

/* 1 on a thread once the scheduler runs; 0 in an interrupt handler, in
 * initialization (tx_application_define) and before tx_kernel_enter. */
int antpool_tx_in_thread(void)
{
    return TX_THREAD_GET_SYSTEM_STATE() == 0 && _tx_thread_current_ptr != TX_NULL;
}

/* 1 in an interrupt handler (not in initialization). */
int antpool_tx_in_isr(void)
{
    ULONG state = TX_THREAD_GET_SYSTEM_STATE();
    return state != 0 && state < TX_INITIALIZE_IN_PROGRESS;
}
