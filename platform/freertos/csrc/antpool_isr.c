/* antpool-freertos's `isr` feature: what it calls to work inside an interrupt
 * handler. These are macros (or static inline functions) in the ports'
 * headers, so they need a C body: compile this file with your kernel.
 *
 *   - antpool_in_isr: whether the caller is an interrupt handler;
 *   - antpool_enter/exit_critical_from_isr: taskENTER/EXIT_CRITICAL_FROM_ISR;
 *   - antpool_yield_from_isr: portYIELD_FROM_ISR, after a FromISR notify
 *     that woke a task of higher priority than the one interrupted. */
#include "FreeRTOS.h"
#include "task.h"

#if defined(__riscv)
/* The GCC/RISC-V port has no xPortIsInsideInterrupt: give one with the
 * kernel (the QEMU demo's tests whether sp is on the interrupt stack). */
BaseType_t xPortIsInsideInterrupt(void);
#endif

BaseType_t antpool_in_isr(void) { return xPortIsInsideInterrupt(); }

UBaseType_t antpool_enter_critical_from_isr(void) { return (UBaseType_t)taskENTER_CRITICAL_FROM_ISR(); }

void antpool_exit_critical_from_isr(UBaseType_t saved) { taskEXIT_CRITICAL_FROM_ISR(saved); }

void antpool_yield_from_isr(BaseType_t woken) { portYIELD_FROM_ISR(woken); }
