//! [`Stalling`]: a byte stream that fails once it has made no progress for
//! a while, reading or writing. It ends connections that sit idle, and a
//! response that a client stopped reading, so no client holds the endpoint.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::{Instant, Sleep};

/// `inner`, failing with [`io::ErrorKind::TimedOut`] when a read or a
/// write has waited `stall` since the stream last moved a byte.
#[derive(Debug)]
pub(crate) struct Stalling<S> {
    inner: S,
    stall: Duration,
    // Boxed: `Sleep` is not `Unpin`, and the stream must be.
    timer: Pin<Box<Sleep>>,
}

impl<S> Stalling<S> {
    /// Wraps `inner`; the clock starts now.
    pub(crate) fn new(inner: S, stall: Duration) -> Self {
        Self {
            inner,
            stall,
            timer: Box::pin(tokio::time::sleep(stall)),
        }
    }

    /// Restarts the clock: the stream moved.
    fn moved(&mut self) {
        self.timer.as_mut().reset(Instant::now() + self.stall);
    }

    /// What a pending read or write becomes: still pending, or an error
    /// once the stream has waited too long.
    fn waiting<T>(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<T>> {
        match self.timer.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!("no byte moved for {:?}", self.stall),
            ))),
            Poll::Pending => Poll::Pending,
        }
    }

    /// Restarts the clock after a step that moved bytes; turns a pending
    /// step into a timeout once the clock has run out.
    fn step<T>(
        &mut self,
        cx: &mut Context<'_>,
        polled: Poll<io::Result<T>>,
        moved: impl FnOnce(&T) -> bool,
    ) -> Poll<io::Result<T>> {
        match polled {
            Poll::Pending => self.waiting(cx),
            Poll::Ready(Ok(done)) => {
                if moved(&done) {
                    self.moved();
                }
                Poll::Ready(Ok(done))
            }
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Stalling<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let polled = Pin::new(&mut this.inner).poll_read(cx, buf);
        // End of stream moves nothing, but it is an answer: let it through.
        let grew = buf.filled().len() > before;
        this.step(cx, polled, |()| grew)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Stalling<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.inner).poll_write(cx, buf);
        this.step(cx, polled, |&n| n > 0)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.inner).poll_write_vectored(cx, bufs);
        this.step(cx, polled, |&n| n > 0)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.inner).poll_flush(cx);
        this.step(cx, polled, |()| false)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.inner).poll_shutdown(cx);
        this.step(cx, polled, |()| false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .start_paused(true)
            .build()
            .expect("a runtime")
    }

    #[test]
    fn an_idle_read_times_out_and_bytes_restart_the_clock() {
        runtime().block_on(async {
            let (client, server) = tokio::io::duplex(64);
            let mut server = Stalling::new(server, Duration::from_secs(10));
            let mut client = client;
            let mut byte = [0u8; 1];
            tokio::time::sleep(Duration::from_secs(9)).await;
            client.write_all(b"x").await.expect("written");
            server.read_exact(&mut byte).await.expect("a byte in time");
            // 9 s after the byte: the clock restarted, so still in time.
            tokio::time::sleep(Duration::from_secs(9)).await;
            client.write_all(b"y").await.expect("written");
            server.read_exact(&mut byte).await.expect("a byte in time");
            let err = server.read_exact(&mut byte).await.unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::TimedOut, "{err}");
        });
    }

    #[test]
    fn a_write_nobody_reads_times_out() {
        runtime().block_on(async {
            let (_client, server) = tokio::io::duplex(16);
            let mut server = Stalling::new(server, Duration::from_secs(10));
            let err = server.write_all(&[0u8; 1024]).await.unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::TimedOut, "{err}");
        });
    }
}
