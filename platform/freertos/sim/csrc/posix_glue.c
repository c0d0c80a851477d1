/* freertos-next's shim.c calls xPortIsInsideInterrupt, which the Posix port
 * lacks. On the simulator no task code runs "inside an interrupt": the tick
 * handler is a signal handler that never calls back into Rust. */
#include "FreeRTOS.h"

BaseType_t xPortIsInsideInterrupt(void) { return pdFALSE; }
