/* The size and alignment of FreeRTOS's StaticTask_t, which only C knows:
 * antpool-freertos's TaskSlots checks its TCB reserve against them before it
 * makes a task with xTaskCreateStatic. Compile this file with your kernel (same
 * FreeRTOSConfig.h) whenever you use StaticSpawner. */
#include "FreeRTOS.h"
#include "task.h"

const size_t antpool_static_task_size = sizeof(StaticTask_t);
const size_t antpool_static_task_align = _Alignof(StaticTask_t);
