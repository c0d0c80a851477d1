//! A tokio server whose blocking work is bounded by antpool instead of a
//! `Semaphore` around `spawn_blocking`.
//!
//! The usual way to keep a tokio server from running too much blocking work at
//! once is a semaphore in front of `spawn_blocking`:
//!
//! ```text
//! let permit = semaphore.clone().acquire_owned().await?;
//! let answer = tokio::task::spawn_blocking(move || { let _p = permit; work(n) }).await?;
//! ```
//!
//! which still lets tokio start up to 512 blocking threads for other callers,
//! and leaves the queueing policy to the semaphore. Here one antpool `Pool`
//! is both the bound and the threads: `spawn_async` waits for room without
//! blocking the runtime's thread (the connection's task is parked, in the same
//! FIFO as any blocking submitter) and then for the result, in one `.await`.
//! A connection that goes away while it waits drops its future, which leaves
//! the line and submits nothing.
//!
//! The example serves 32 clients on a current-thread runtime (one thread for
//! all the I/O) with a pool of 4 workers, checks every answer, and reports the
//! most blocking jobs that ever ran at once.
//!
//! ```text
//! cargo run --release --example async_server
//! ```

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use antpool::Pool;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

const WORKERS: usize = 4;
const CLIENTS: u64 = 32;

/// The blocking work a request needs (a file read, a compression, a database
/// driver without async): here 10 ms of sleep, and a square.
fn blocking_work(n: u64, running: &AtomicUsize, most: &AtomicUsize) -> u64 {
    let now = running.fetch_add(1, Ordering::SeqCst) + 1;
    most.fetch_max(now, Ordering::SeqCst);
    thread::sleep(Duration::from_millis(10));
    running.fetch_sub(1, Ordering::SeqCst);
    n * n
}

/// One connection: read a number, have the pool work on it, answer.
async fn serve(
    stream: TcpStream,
    pool: Arc<Pool>,
    running: Arc<AtomicUsize>,
    most: Arc<AtomicUsize>,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let (read, mut write) = stream.into_split();
    let mut line = String::new();
    BufReader::new(read).read_line(&mut line).await?;
    let n: u64 = line.trim().parse()?;
    // Waits for room without blocking the runtime, then for the result.
    let answer = pool
        .spawn_async(move || blocking_work(n, &running, &most))
        .await?;
    write.write_all(format!("{answer}\n").as_bytes()).await?;
    Ok(())
}

async fn client(addr: std::net::SocketAddr, n: u64) -> std::io::Result<u64> {
    let mut stream = TcpStream::connect(addr).await?;
    stream.write_all(format!("{n}\n").as_bytes()).await?;
    let mut answer = String::new();
    BufReader::new(stream).read_line(&mut answer).await?;
    Ok(answer.trim().parse().expect("the server answers a number"))
}

fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()?;
    let pool = Arc::new(Pool::new(WORKERS)?);
    let running = Arc::new(AtomicUsize::new(0));
    let most = Arc::new(AtomicUsize::new(0));
    let start = Instant::now();
    runtime.block_on(async {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let (pool2, running2, most2) = (pool.clone(), running.clone(), most.clone());
        let server = tokio::spawn(async move {
            for _ in 0..CLIENTS {
                let (stream, _) = listener.accept().await?;
                let (pool, running, most) = (pool2.clone(), running2.clone(), most2.clone());
                tokio::spawn(async move {
                    if let Err(e) = serve(stream, pool, running, most).await {
                        eprintln!("a connection failed: {e}");
                    }
                });
            }
            Ok::<(), std::io::Error>(())
        });
        let clients: Vec<_> = (1..=CLIENTS)
            .map(|n| tokio::spawn(client(addr, n)))
            .collect();
        for (n, c) in (1..=CLIENTS).zip(clients) {
            assert_eq!(c.await??, n * n, "client {n} got a wrong answer");
        }
        server.await??;
        Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
    })?;
    let most = most.load(Ordering::SeqCst);
    println!(
        "{CLIENTS} clients served in {} ms on one runtime thread; at most {most} blocking jobs ran at once (pool of {WORKERS})",
        start.elapsed().as_millis()
    );
    assert!(most <= WORKERS, "the pool bounds the blocking work");
    pool.release_timeout(Duration::from_secs(5))?;
    Ok(())
}
