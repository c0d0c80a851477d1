//! Builds the FreeRTOS kernel (freertos-next's copy, V11.2.0) for the Posix
//! simulator port, with the glue the port lacks.

fn main() {
    let mut kernel = freertos_build::Builder::new();
    // The port is picked from the target: x86_64-unknown-linux-gnu → ThirdParty/GCC/Posix.
    kernel.heap_size(4 * 1024 * 1024);
    kernel.minimal_stack_size(1024);
    kernel.max_task_priorities(5);
    kernel.user_config_dir("config");
    kernel.add_build_file("csrc/posix_glue.c");
    // sizeof(StaticTask_t) for antpool-freertos's TaskSlots check.
    kernel.add_build_file("../csrc/antpool_static_task.c");
    // The kernel's own C is not ours to warn about.
    kernel.get_cc().warnings(false);
    if let Err(e) = kernel.compile() {
        panic!("building the FreeRTOS kernel failed: {e:?}");
    }
    println!("cargo:rerun-if-changed=config/UserConfig.h");
    println!("cargo:rerun-if-changed=csrc/posix_glue.c");
    println!("cargo:rerun-if-changed=../csrc/antpool_static_task.c");
}
