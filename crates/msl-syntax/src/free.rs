//! Freeing large values on a background thread.
//!
//! Dropping the tree of an 11,000-line unit takes milliseconds. An editor replaces that
//! tree on every keystroke, and whoever holds the last reference frees it: often the
//! thread that is about to compute the next diagnostics. Once a program opts in with
//! [`free_in_background`] (the language server does), values handed to [`free_later`] are
//! dropped by one background thread instead. Batch tools leave it off: freeing memory
//! another thread allocated costs that thread more later, and they have no keystroke to
//! answer first.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Sender, channel};

static FREER: OnceLock<Option<Sender<Box<dyn Send>>>> = OnceLock::new();
static IN_BACKGROUND: AtomicBool = AtomicBool::new(false);

/// Whether [`free_later`] hands values to the background thread (off by default).
pub fn free_in_background(on: bool) {
    IN_BACKGROUND.store(on, Ordering::Relaxed);
}

/// Whether [`free_later`] hands values to the background thread.
pub(crate) fn in_background() -> bool {
    IN_BACKGROUND.load(Ordering::Relaxed)
}

fn freer() -> Option<&'static Sender<Box<dyn Send>>> {
    FREER
        .get_or_init(|| {
            let (tx, rx) = channel::<Box<dyn Send>>();
            std::thread::Builder::new()
                .name("msl-free".into())
                .spawn(move || {
                    for value in rx {
                        drop(value);
                    }
                })
                .ok()
                .map(|_| tx)
        })
        .as_ref()
}

/// Drops `value` on the background thread when [`free_in_background`] is on (and the
/// thread could be started), else right here.
pub fn free_later<T: Send + 'static>(value: T) {
    if !IN_BACKGROUND.load(Ordering::Relaxed) {
        return drop(value);
    }
    match freer() {
        Some(tx) => {
            // a send fails only when the thread is gone; the value then comes back
            if let Err(e) = tx.send(Box::new(value)) {
                drop(e.0);
            }
        }
        None => drop(value),
    }
}

#[cfg(test)]
mod tests {
    use super::{free_in_background, free_later};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::{Duration, Instant};

    struct Counted(Arc<AtomicUsize>, std::thread::ThreadId);
    impl Drop for Counted {
        fn drop(&mut self) {
            assert_ne!(std::thread::current().id(), self.1, "dropped on the thread that let go of it");
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn values_are_dropped_on_another_thread() {
        free_in_background(true);
        let n = Arc::new(AtomicUsize::new(0));
        for _ in 0..100 {
            free_later(Counted(n.clone(), std::thread::current().id()));
        }
        let start = Instant::now();
        while n.load(Ordering::SeqCst) < 100 && start.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(1));
        }
        assert_eq!(n.load(Ordering::SeqCst), 100);
    }
}
