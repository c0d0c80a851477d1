/* Compiled in place of freertos-next's shim.c (build.rs), whose wrappers call
 * xTaskCreate, xQueueCreate and pvPortMalloc: a kernel built without
 * configSUPPORT_DYNAMIC_ALLOCATION has none of them, and this program uses
 * none of freertos-next's Rust API. */
