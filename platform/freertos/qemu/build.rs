//! Builds FreeRTOS-Kernel V11.2.0 (freertos-next's copy) for the target's
//! core (`GCC/ARM_CM3`, `GCC/ARM_CM4F` or `GCC/ARM_CM33_NTZ`, which
//! freertos-build picks from the target; `GCC/ARM_CM0` for the micro:bit,
//! through `microbit-build`; or `GCC/RISC-V` with the CLINT's machine timer)
//! and, on Cortex-M, puts the board's memory map where cortex-m-rt's `link.x`
//! looks for `memory.x`. On RISC-V the program has its own link script
//! (`link-riscv.x`) and a C glue file (`csrc/riscv_glue.c`).

use std::path::PathBuf;
use std::{env, fs};

use freertos_build::prelude::*;

fn main() {
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    // The Cortex-M33 board (mps2-an505) has its own memory map and clock.
    let target = env::var("TARGET").unwrap_or_default();
    let m33 = target.starts_with("thumbv8m.main");
    let riscv = target.starts_with("riscv32");
    // The Cortex-M0 board (QEMU's microbit, an nRF51822): `cfg(microbit)`.
    let microbit = antpool_freertos_microbit_build::microbit();
    let memory: &[u8] = match (m33, microbit) {
        (true, _) => include_bytes!("memory-an505.x"),
        (_, true) => antpool_freertos_microbit_build::MEMORY_X,
        _ => include_bytes!("memory-an385.x"),
    };
    fs::write(out.join("memory.x"), memory).expect("write memory.x");
    println!("cargo:rustc-link-search={}", out.display());
    // (Neither file is called memory.x: the linker would find one in this
    // directory before the one written here.)
    println!("cargo:rerun-if-changed=memory-an385.x");
    println!("cargo:rerun-if-changed=memory-an505.x");
    println!("cargo:rerun-if-changed=config/UserConfig.h");

    let mut kernel = match microbit {
        // freertos-next's features, as in Cargo.toml; microbit-build sets the clock.
        true => antpool_freertos_microbit_build::kernel(&[
            "INCLUDE_vTaskDelete",
            "INCLUDE_uxTaskGetStackHighWaterMark",
            "INCLUDE_vTaskSuspend",
        ]),
        false => freertos_build::Builder::new(),
    };
    // The board's system clock, which drives SysTick: a 1 kHz tick. (25 MHz on
    // mps2-an385/386/500, 20 MHz on mps2-an505; the micro:bit's is set above.)
    // On RISC-V: the frequency of `mtime`, which drives the tick (10 MHz on virt).
    match (m33, riscv) {
        _ if microbit => {}
        (_, true) => kernel.cpu_clock(10.MHz()),
        (true, _) => kernel.cpu_clock(20.MHz()),
        _ => kernel.cpu_clock(25.MHz()),
    }
    // The micro:bit has 16 KiB of RAM in all: its tasks' stacks and control
    // blocks come from 8 KiB of heap, and its idle task is small.
    kernel.heap_size(if microbit { 8 * 1024 } else { 256 * 1024 });
    // Words: the idle task's stack.
    kernel.minimal_stack_size(if microbit { 96 } else { 256 });
    kernel.max_task_priorities(5);
    if riscv {
        let dir = PathBuf::from(env::var_os("DEP_FREERTOS_KERNEL").expect("freertos-next's links"));
        kernel.freertos_port("GCC/RISC-V");
        kernel.get_cc().include(
            dir.join(
                "portable/GCC/RISC-V/chip_specific_extensions/RISCV_MTIME_CLINT_no_extensions",
            ),
        );
        kernel.add_build_file("csrc/riscv_glue.c");
        let here = env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
        println!("cargo:rustc-link-search={here}");
        println!("cargo:rerun-if-changed=link-riscv.x");
    } else if !microbit {
        // 3 priority bits (as the board's NVIC has); kernel at the lowest, syscalls up to 5.
        // (The ARM_CM0 port has no BASEPRI: its critical sections mask every interrupt.)
        kernel.interrupt_priority_bits(3, 5, 7);
    }
    // Method 2 (watermark pattern at the stack's end, checked at every switch):
    // a worker stack too small for its jobs ends the demo with its name.
    kernel.check_for_stack_overflow(2);
    kernel.user_config_dir("config");
    // antpool-freertos's `isr` feature: its lock and signal inside interrupts.
    kernel.add_build_file("../csrc/antpool_isr.c");
    // The kernel's own C is not ours to warn about.
    kernel.get_cc().warnings(false);
    if let Err(e) = kernel.compile() {
        panic!("building the FreeRTOS kernel failed: {e:?}");
    }
}
