/* Compiled in place of FreeRTOS's heap_x.c (build.rs): this program has no
 * kernel heap, so no pvPortMalloc, vPortFree or ucHeap. */
