//! Running an executable as an argument vector, with a deadline, cancellation and
//! bounded output. On Unix the child leads its own process group, so a timeout or a
//! cancellation kills whatever it started too (the `metal` driver runs a front end).

use std::ffi::OsString;
use std::io::Read;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// At most this much of each output stream is kept; the rest is read and dropped.
pub const OUTPUT_LIMIT: usize = 64 << 20;

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Exit {
    /// The exit code, when the process exited normally.
    pub code: Option<i32>,
    /// The signal that ended it (Unix).
    pub signal: Option<i32>,
}

impl Exit {
    pub fn success(&self) -> bool {
        self.code == Some(0)
    }
}

impl std::fmt::Display for Exit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.code, self.signal) {
            (Some(c), _) => write!(f, "exit status {c}"),
            (None, Some(s)) => write!(f, "signal {s}"),
            (None, None) => write!(f, "an unknown status"),
        }
    }
}

#[derive(Debug)]
pub struct Ran {
    pub exit: Exit,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    /// Output beyond [`OUTPUT_LIMIT`] was dropped.
    pub truncated: bool,
    pub elapsed: Duration,
}

#[derive(Debug)]
pub enum RunFailure {
    /// The executable could not be started.
    Spawn(std::io::Error),
    TimedOut(Duration),
    Cancelled,
}

/// Runs `program args...` in `cwd` with no standard input.
pub fn run(
    program: &Path,
    args: &[OsString],
    cwd: &Path,
    timeout: Duration,
    cancel: Option<&AtomicBool>,
) -> Result<Ran, RunFailure> {
    let mut cmd = Command::new(program);
    cmd.args(args).current_dir(cwd).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    let started = Instant::now();
    // an executable that was just written may still be open for writing in a process
    // forked meanwhile (ETXTBSY); that passes within moments
    let mut attempts = 0;
    let mut child = loop {
        match cmd.spawn() {
            Ok(c) => break c,
            Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy && attempts < 50 => {
                attempts += 1;
                std::thread::sleep(Duration::from_millis(10));
            }
            Err(e) => return Err(RunFailure::Spawn(e)),
        }
    };
    let out_reader = child.stdout.take().map(|s| std::thread::spawn(move || drain(s)));
    let err_reader = child.stderr.take().map(|s| std::thread::spawn(move || drain(s)));

    let mut pause = Duration::from_millis(1);
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) => {}
            Err(_) => break None,
        }
        if cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
            kill(&mut child);
            join(out_reader);
            join(err_reader);
            return Err(RunFailure::Cancelled);
        }
        if started.elapsed() >= timeout {
            kill(&mut child);
            join(out_reader);
            join(err_reader);
            return Err(RunFailure::TimedOut(timeout));
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(20));
    };
    // anything the compiler left running would keep the pipes open
    kill_group(&child);
    let (stdout, t1) = join(out_reader);
    let (stderr, t2) = join(err_reader);
    let exit = match status {
        Some(s) => exit_of(s),
        None => Exit { code: None, signal: None },
    };
    Ok(Ran { exit, stdout, stderr, truncated: t1 || t2, elapsed: started.elapsed() })
}

fn exit_of(s: std::process::ExitStatus) -> Exit {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        Exit { code: s.code(), signal: s.signal() }
    }
    #[cfg(not(unix))]
    {
        Exit { code: s.code(), signal: None }
    }
}

fn drain(mut r: impl Read) -> (Vec<u8>, bool) {
    let mut kept = Vec::new();
    let mut buf = [0u8; 64 * 1024];
    let mut truncated = false;
    loop {
        match r.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                let room = OUTPUT_LIMIT.saturating_sub(kept.len());
                if room < n {
                    truncated = true;
                }
                kept.extend_from_slice(&buf[..n.min(room)]);
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    (kept, truncated)
}

fn join(h: Option<std::thread::JoinHandle<(Vec<u8>, bool)>>) -> (Vec<u8>, bool) {
    h.and_then(|h| h.join().ok()).unwrap_or_default()
}

fn kill(child: &mut Child) {
    kill_group(child);
    let _ = child.kill();
    let _ = child.wait();
}

#[cfg(unix)]
fn kill_group(child: &Child) {
    // the child was started as the leader of a new group whose id is its pid
    if let Ok(pid) = libc::pid_t::try_from(child.id())
        && pid > 0
    {
        // SAFETY: sends a signal to a process group we created; no memory is involved
        unsafe {
            libc::killpg(pid, libc::SIGKILL);
        }
    }
}

#[cfg(not(unix))]
fn kill_group(_child: &Child) {}
