/* What antpool-freertos (and freertos-next's shim) call that the GCC/RISC-V
 * port has only as macros, or not at all. */
#include <stdint.h>

#include "FreeRTOS.h"
#include "task.h"

/* antpool-freertos's CriticalSection calls these by name. */
void vPortEnterCritical(void) { portENTER_CRITICAL(); }
void vPortExitCritical(void) { portEXIT_CRITICAL(); }

/* The trap handler always moves to the interrupt stack (link-riscv.x), and
 * nothing else runs on it: inside an interrupt exactly when sp is there. */
BaseType_t xPortIsInsideInterrupt(void)
{
    extern const uint32_t __freertos_irq_stack_bottom[];
    extern const uint32_t __freertos_irq_stack_top[];
    uintptr_t sp;
    __asm volatile("mv %0, sp" : "=r"(sp));
    return (sp > (uintptr_t)__freertos_irq_stack_bottom && sp <= (uintptr_t)__freertos_irq_stack_top) ? pdTRUE : pdFALSE;
}
