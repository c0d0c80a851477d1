//! Builds FreeRTOS-Kernel V11.2.0 (freertos-next's copy) for the Cortex-M3
//! (`GCC/ARM_CM3`), or the micro:bit's Cortex-M0 (`GCC/ARM_CM0`, through
//! `../qemu/microbit-build`), with static allocation only and no heap, plus
//! antpool-freertos's `csrc/antpool_static_task.c` and `csrc/antpool_isr.c`,
//! and puts the board's memory map where cortex-m-rt's `link.x` looks for
//! `memory.x`.

use std::path::PathBuf;
use std::{env, fs};

use freertos_build::prelude::*;

fn main() {
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let here = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    // The Cortex-M0 board (QEMU's microbit, an nRF51822): `cfg(microbit)`.
    let microbit = antpool_freertos_microbit_build::microbit();
    let memory: &[u8] = match microbit {
        true => antpool_freertos_microbit_build::MEMORY_X,
        false => include_bytes!("memory-an385.x"),
    };
    fs::write(out.join("memory.x"), memory).expect("write memory.x");
    println!("cargo:rustc-link-search={}", out.display());
    // (Not called memory.x: the linker would find one in this directory before
    // the one written here.)
    println!("cargo:rerun-if-changed=memory-an385.x");
    println!("cargo:rerun-if-changed=config/UserConfig.h");
    println!("cargo:rerun-if-changed=csrc");
    println!("cargo:rerun-if-changed=../csrc/antpool_static_task.c");
    println!("cargo:rerun-if-changed=../csrc/antpool_isr.c");

    let mut kernel = match microbit {
        // freertos-next's features, as in Cargo.toml; microbit-build sets the clock.
        true => antpool_freertos_microbit_build::kernel(&[
            "INCLUDE_uxTaskGetStackHighWaterMark",
            "INCLUDE_vTaskSuspend",
        ]),
        false => freertos_build::Builder::new(),
    };
    if !microbit {
        // The board's 25 MHz system clock drives SysTick: a 1 kHz tick.
        kernel.cpu_clock(25.MHz());
        // 3 priority bits (as the board's NVIC has); kernel at the lowest,
        // syscalls up to 5. (The ARM_CM0 port masks every interrupt instead.)
        kernel.interrupt_priority_bits(3, 5, 7);
    }
    // No heap_x.c: the builder joins this name onto MemMang/, and an absolute
    // path replaces the whole path, so an empty file is compiled instead.
    kernel.heap(here.join("csrc/no_heap.c"));
    // Nor freertos-next's shim (it calls the heap-allocating kernel API).
    kernel.shim_file(here.join("csrc/no_shim.c"));
    // Words: the idle task's stack (the kernel's own static buffer; the
    // micro:bit's 16 KiB of RAM hold less).
    kernel.minimal_stack_size(if microbit { 96 } else { 256 });
    kernel.max_task_priorities(5);
    // Method 2: a slot stack too small for its jobs ends the demo with its name.
    kernel.check_for_stack_overflow(2);
    kernel.user_config_dir("config");
    // sizeof(StaticTask_t) and its alignment, which TaskSlots checks.
    kernel.add_build_file(here.join("../csrc/antpool_static_task.c"));
    // antpool-freertos's `isr` feature: its lock and signal inside
    // interrupts (the port kit's interrupt check).
    kernel.add_build_file(here.join("../csrc/antpool_isr.c"));
    // The kernel's own C is not ours to warn about.
    kernel.get_cc().warnings(false);
    if let Err(e) = kernel.compile() {
        panic!("building the FreeRTOS kernel failed: {e:?}");
    }
}
