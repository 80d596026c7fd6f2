//! `--ranks N --allreduce`: data parallelism as DDP does it. Each step every
//! rank sends its gradients to a small reduce server the launcher runs on
//! 127.0.0.1 (a port of its choosing, passed to the ranks), waits for the
//! mean of all ranks' gradients and applies it: a synchronous all-reduce,
//! recorded as the phase `allreduce`. A slow rank therefore makes the
//! others wait at the collective, as in a real fleet. Every connect and read
//! has a bounded timeout and fails with a message naming the rank.
//!
//! The wire format is little-endian: a rank says hello with its rank
//! (`u32`), then per step sends `u64` floats followed by its `f32`
//! gradients, and reads back as many `f32` means. Closing the connection
//! between steps ends its part.

use std::io::{self, BufReader, BufWriter, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use tiny_transformer::Params;

/// Longest the server waits for every rank to connect, and a rank for the
/// server to answer a step (a slow rank's step takes seconds at most).
pub(crate) const TIMEOUT: Duration = Duration::from_secs(120);

/// The reduce server: accepts `world` ranks, then averages their
/// gradients step after step until every rank has closed.
pub(crate) struct Server {
    addr: SocketAddr,
    abandoned: Arc<AtomicBool>,
    thread: JoinHandle<Result<u64, String>>,
}

impl Server {
    /// Binds 127.0.0.1 on a free port and serves `world` ranks on a thread.
    ///
    /// # Errors
    /// The port cannot be bound.
    pub(crate) fn start(world: u32) -> Result<Self, String> {
        let listener = TcpListener::bind("127.0.0.1:0")
            .map_err(|e| format!("all-reduce server: cannot bind 127.0.0.1: {e}"))?;
        let addr = listener
            .local_addr()
            .map_err(|e| format!("all-reduce server: no local address: {e}"))?;
        let abandoned = Arc::new(AtomicBool::new(false));
        let stop = Arc::clone(&abandoned);
        let thread = std::thread::spawn(move || serve(&listener, world, &stop));
        Ok(Self {
            addr,
            abandoned,
            thread,
        })
    }

    /// Stops waiting for ranks to join (one failed before it could).
    pub(crate) fn abandon(&self) {
        self.abandoned.store(true, Ordering::Relaxed);
    }

    /// The address the ranks connect to.
    pub(crate) fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Waits for the server to finish: the steps it reduced.
    ///
    /// # Errors
    /// What went wrong with a rank's connection.
    pub(crate) fn join(self) -> Result<u64, String> {
        self.thread
            .join()
            .map_err(|_| "all-reduce server panicked".to_owned())?
    }
}

/// Accepts every rank (each says which it is), then reduces steps until
/// all close.
fn serve(listener: &TcpListener, world: u32, stop: &AtomicBool) -> Result<u64, String> {
    let mut ranks = accept_all(listener, world, stop)?;
    let mut steps = 0u64;
    let mut sum: Vec<f32> = Vec::new();
    loop {
        let mut closed = 0;
        for (rank, stream) in ranks.iter_mut().enumerate() {
            match read_len(&mut stream.0)
                .map_err(|e| format!("all-reduce: rank {rank}, step {steps}: {e}"))?
            {
                None => closed += 1,
                Some(len) if closed == 0 => {
                    if rank == 0 {
                        sum = vec![0.0; len];
                    } else if len != sum.len() {
                        return Err(format!(
                            "all-reduce: rank {rank} sent {len} gradients at step {steps}, rank 0 sent {}",
                            sum.len()
                        ));
                    }
                    add_floats(&mut stream.0, &mut sum)
                        .map_err(|e| format!("all-reduce: rank {rank}, step {steps}: {e}"))?;
                }
                Some(_) => {
                    return Err(format!(
                        "all-reduce: rank {rank} sent step {steps} after another rank closed"
                    ));
                }
            }
        }
        if closed == ranks.len() {
            return Ok(steps);
        }
        if closed > 0 {
            return Err(format!(
                "all-reduce: {closed} of {world} ranks closed at step {steps}"
            ));
        }
        let n = world as f32;
        let mean: Vec<u8> = sum.iter().flat_map(|v| (v / n).to_le_bytes()).collect();
        for (rank, stream) in ranks.iter_mut().enumerate() {
            stream
                .1
                .write_all(&mean)
                .and_then(|()| stream.1.flush())
                .map_err(|e| format!("all-reduce: cannot answer rank {rank}: {e}"))?;
        }
        steps += 1;
    }
}

type Conn = (BufReader<TcpStream>, BufWriter<TcpStream>);

/// Every rank's connection, by rank; gives up after [`TIMEOUT`] or when
/// `stop` is set.
fn accept_all(listener: &TcpListener, world: u32, stop: &AtomicBool) -> Result<Vec<Conn>, String> {
    listener
        .set_nonblocking(true)
        .map_err(|e| format!("all-reduce server: {e}"))?;
    let deadline = Instant::now() + TIMEOUT;
    let mut ranks: Vec<Option<Conn>> = (0..world).map(|_| None).collect();
    let mut joined = 0;
    while joined < world {
        match listener.accept() {
            Ok((stream, _)) => {
                let rank =
                    hello(&stream).map_err(|e| format!("all-reduce: a rank's hello: {e}"))?;
                let slot = ranks
                    .get_mut(rank as usize)
                    .ok_or_else(|| format!("all-reduce: rank {rank} is not of 0..{world}"))?;
                if slot.is_some() {
                    return Err(format!("all-reduce: rank {rank} connected twice"));
                }
                let write = stream
                    .try_clone()
                    .map_err(|e| format!("all-reduce: rank {rank}: {e}"))?;
                *slot = Some((BufReader::new(stream), BufWriter::new(write)));
                joined += 1;
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                if stop.load(Ordering::Relaxed) {
                    return Err(format!(
                        "all-reduce: {joined} of {world} ranks connected before a rank failed"
                    ));
                }
                if Instant::now() > deadline {
                    return Err(format!(
                        "all-reduce: {joined} of {world} ranks connected in {} s",
                        TIMEOUT.as_secs()
                    ));
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            Err(e) => return Err(format!("all-reduce server: accept: {e}")),
        }
    }
    Ok(ranks.into_iter().flatten().collect())
}

/// A new connection's rank, read within [`TIMEOUT`].
fn hello(stream: &TcpStream) -> io::Result<u32> {
    stream.set_nonblocking(false)?;
    stream.set_read_timeout(Some(TIMEOUT))?;
    stream.set_nodelay(true)?;
    let mut rank = [0u8; 4];
    (&*stream).read_exact(&mut rank)?;
    Ok(u32::from_le_bytes(rank))
}

/// A step's float count, or `None` when the rank closed between steps.
fn read_len(r: &mut impl Read) -> io::Result<Option<usize>> {
    let mut len = [0u8; 8];
    match r.read_exact(&mut len) {
        Ok(()) => usize::try_from(u64::from_le_bytes(len))
            .map(Some)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "gradient count too large")),
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(None),
        Err(e) => Err(e),
    }
}

/// Reads `sum.len()` floats and adds them to `sum`.
fn add_floats(r: &mut impl Read, sum: &mut [f32]) -> io::Result<()> {
    let mut bytes = [0u8; 4];
    for v in sum {
        r.read_exact(&mut bytes)?;
        *v += f32::from_le_bytes(bytes);
    }
    Ok(())
}

/// A rank's end of the collective.
pub(crate) struct Client {
    rank: u32,
    read: BufReader<TcpStream>,
    write: BufWriter<TcpStream>,
    flat: Vec<f32>,
}

impl Client {
    /// Connects rank `rank` to the server at `addr`.
    ///
    /// # Errors
    /// No server answers within [`TIMEOUT`].
    pub(crate) fn connect(addr: &str, rank: u32) -> Result<Self, String> {
        let err = |e: io::Error| format!("rank {rank}: all-reduce server {addr}: {e}");
        let at: SocketAddr = addr
            .parse()
            .map_err(|e| format!("rank {rank}: all-reduce address `{addr}`: {e}"))?;
        let stream = TcpStream::connect_timeout(&at, TIMEOUT).map_err(err)?;
        stream.set_read_timeout(Some(TIMEOUT)).map_err(err)?;
        stream.set_write_timeout(Some(TIMEOUT)).map_err(err)?;
        stream.set_nodelay(true).map_err(err)?;
        let mut write = BufWriter::new(stream.try_clone().map_err(err)?);
        write
            .write_all(&rank.to_le_bytes())
            .and_then(|()| write.flush())
            .map_err(err)?;
        Ok(Self {
            rank,
            read: BufReader::new(stream),
            write,
            flat: Vec::new(),
        })
    }

    /// Replaces `grads` by their mean over every rank, as the phase
    /// `allreduce`.
    ///
    /// # Errors
    /// The server closed, failed or did not answer within [`TIMEOUT`].
    pub(crate) fn all_reduce(&mut self, grads: &mut Params) -> Result<(), String> {
        let _phase = profiler::phase("allreduce");
        self.flat.clear();
        for t in grads.tensors() {
            self.flat.extend_from_slice(t);
        }
        let rank = self.rank;
        let err = |e: io::Error| format!("rank {rank}: all-reduce: {e}");
        self.write
            .write_all(&(self.flat.len() as u64).to_le_bytes())
            .map_err(err)?;
        for v in &self.flat {
            self.write.write_all(&v.to_le_bytes()).map_err(err)?;
        }
        self.write.flush().map_err(err)?;
        let mut bytes = [0u8; 4];
        let mut at = 0;
        for t in grads.tensors_mut() {
            for v in t {
                self.read.read_exact(&mut bytes).map_err(err)?;
                *v = f32::from_le_bytes(bytes);
                at += 1;
            }
        }
        debug_assert_eq!(at, self.flat.len());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{Client, Server};
    use tiny_transformer::{Config, Params};

    /// Gradients of the tiny model, every value `v`.
    fn grads(v: f32) -> Params {
        let mut p = Params::zeros(&Config::tiny());
        p.tensors_mut().into_iter().for_each(|t| t.fill(v));
        p
    }

    #[test]
    fn every_rank_gets_the_mean_of_all_ranks_gradients_each_step() {
        let server = Server::start(3).expect("server");
        let addr = server.addr().to_string();
        let ranks: Vec<_> = (0..3u32)
            .map(|rank| {
                let addr = addr.clone();
                std::thread::spawn(move || {
                    let mut client = Client::connect(&addr, rank).expect("connects");
                    let mut seen = Vec::new();
                    for step in 0..2u32 {
                        // Ranks 0, 1, 2 send 1, 2, 6 (then 10 more): mean 3 (13).
                        let v = [1.0, 2.0, 6.0][rank as usize] + 10.0 * step as f32;
                        let mut g = grads(v);
                        client.all_reduce(&mut g).expect("reduced");
                        seen.push(
                            g.tensors()
                                .iter()
                                .flat_map(|t| t.iter())
                                .copied()
                                .collect::<Vec<f32>>(),
                        );
                    }
                    seen
                })
            })
            .collect();
        for rank in ranks {
            let seen = rank.join().expect("rank thread");
            assert!(seen[0].iter().all(|&v| (v - 3.0).abs() < 1e-6));
            assert!(seen[1].iter().all(|&v| (v - 13.0).abs() < 1e-6));
        }
        assert_eq!(server.join(), Ok(2), "two steps reduced");
    }

    #[test]
    fn a_rank_that_leaves_early_fails_the_server_and_the_others_by_name() {
        let server = Server::start(2).expect("server");
        let addr = server.addr().to_string();
        let gone = Client::connect(&addr, 1).expect("connects");
        let stays = std::thread::spawn(move || {
            let mut client = Client::connect(&addr, 0).expect("connects");
            client.all_reduce(&mut grads(1.0))
        });
        // Rank 1 never sends a step: it closes while rank 0 waits.
        std::thread::sleep(std::time::Duration::from_millis(200));
        drop(gone);
        let err = stays.join().expect("rank thread").expect_err("no answer");
        assert!(err.starts_with("rank 0: all-reduce:"), "{err}");
        let err = server.join().expect_err("the server fails");
        assert!(err.contains("1 of 2 ranks closed at step 0"), "{err}");
    }

    #[test]
    fn no_server_is_an_error_naming_the_rank_and_the_address() {
        // A port just freed: nothing listens there.
        let addr = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .to_string();
        let err = Client::connect(&addr, 3).err().expect("refused");
        assert!(
            err.starts_with(&format!("rank 3: all-reduce server {addr}:")),
            "{err}"
        );
        let err = Client::connect("nowhere", 1).err().expect("not an address");
        assert!(err.contains("all-reduce address `nowhere`"), "{err}");
    }
}
