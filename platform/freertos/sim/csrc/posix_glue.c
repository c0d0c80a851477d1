/* What the FreeRTOS Posix port lacks for antpool-freertos's tests.
 *
 * 1. freertos-next's shim.c calls xPortIsInsideInterrupt, which the Posix
 *    port does not define.
 * 2. A simulated interrupt: the port's tick is SIGALRM, handled on the
 *    running task's thread (signals blocked while a task is in a critical
 *    section, so a task's critical section masks it, as on hardware), and
 *    the trace hook in config/UserConfig.h calls antpool_sim_tick_interrupt
 *    at the start of every xTaskIncrementTick inside that handler. A test
 *    registers a handler there; while it runs, the task "is in an
 *    interrupt".
 * 3. antpool-freertos's `isr` feature (its lock and notify inside
 *    interrupts) for this port: csrc/antpool_isr.c is not compiled here,
 *    because its portYIELD_FROM_ISR would switch tasks in the middle of
 *    xTaskIncrementTick. No yield is needed: a FromISR notify that wakes a
 *    task of higher priority sets the kernel's pending yield, and the tick
 *    handler switches tasks when xTaskIncrementTick returns (as it does for
 *    tasks the tick itself unblocks). */
#include "FreeRTOS.h"
#include "task.h"

static void (*volatile tick_handler)(void);
static volatile BaseType_t in_tick;

void antpool_sim_set_tick_interrupt(void (*handler)(void)) { tick_handler = handler; }

void antpool_sim_tick_interrupt(void)
{
    void (*handler)(void) = tick_handler;
    if (handler != NULL) {
        in_tick = pdTRUE;
        handler();
        in_tick = pdFALSE;
    }
}

BaseType_t xPortIsInsideInterrupt(void) { return in_tick; }

BaseType_t antpool_in_isr(void) { return in_tick; }

UBaseType_t antpool_enter_critical_from_isr(void) { return (UBaseType_t)taskENTER_CRITICAL_FROM_ISR(); }

void antpool_exit_critical_from_isr(UBaseType_t saved) { taskEXIT_CRITICAL_FROM_ISR(saved); }

void antpool_yield_from_isr(BaseType_t woken) { (void)woken; }
