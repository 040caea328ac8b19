//! A lock the owning thread may take again: calls into an instance are
//! serialised across threads, while a native function running inside a
//! call re-enters the same instance (`module_malloc` calling wasm's
//! `malloc`, `call_indirect` from a native) on the thread that holds it.

use std::sync::{Condvar, Mutex, MutexGuard};
use std::thread::{self, ThreadId};

/// A re-entrant lock without data.
#[derive(Default)]
pub struct ReentrantLock {
    /// The owner and how many times it holds the lock.
    state: Mutex<(Option<ThreadId>, usize)>,
    freed: Condvar,
}

/// Holds a [`ReentrantLock`] until dropped.
pub struct ReentrantGuard<'a> {
    lock: &'a ReentrantLock,
}

impl ReentrantLock {
    fn state(&self) -> MutexGuard<'_, (Option<ThreadId>, usize)> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Takes the lock, waiting while another thread holds it.
    pub fn lock(&self) -> ReentrantGuard<'_> {
        let me = thread::current().id();
        let mut s = self.state();
        while matches!(s.0, Some(owner) if owner != me) {
            s = self.freed.wait(s).unwrap_or_else(|e| e.into_inner());
        }
        s.0 = Some(me);
        s.1 += 1;
        ReentrantGuard { lock: self }
    }

    /// Whether any thread holds the lock now.
    pub fn is_held(&self) -> bool {
        self.state().1 > 0
    }
}

impl Drop for ReentrantGuard<'_> {
    fn drop(&mut self) {
        let mut s = self.lock.state();
        s.1 -= 1;
        if s.1 == 0 {
            s.0 = None;
            self.lock.freed.notify_one();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn reentrant_on_one_thread_exclusive_across_threads() {
        let lock = Arc::new(ReentrantLock::default());
        let outer = lock.lock();
        let inner = lock.lock();
        assert!(lock.is_held());
        let inside = Arc::new(AtomicUsize::new(0));
        let (l2, in2) = (lock.clone(), inside.clone());
        let t = thread::spawn(move || {
            let _g = l2.lock();
            in2.store(1, Ordering::SeqCst);
        });
        thread::sleep(std::time::Duration::from_millis(20));
        assert_eq!(inside.load(Ordering::SeqCst), 0, "the other thread waits");
        drop(inner);
        thread::sleep(std::time::Duration::from_millis(20));
        assert_eq!(inside.load(Ordering::SeqCst), 0, "still held once");
        drop(outer);
        t.join().unwrap();
        assert_eq!(inside.load(Ordering::SeqCst), 1);
        assert!(!lock.is_held());
    }
}
