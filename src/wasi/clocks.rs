//! `clock_res_get` and `clock_time_get`: wall-clock and monotonic time from
//! cap-std's clocks (resolutions from cap-time-ext), CPU time from the host's
//! `clock_gettime`. Reading a clock allocates nothing.

use std::time::Duration;

use cap_std::ambient_authority;
use cap_std::time::{Instant, MonotonicClock, SystemClock, SystemTime};
use cap_time_ext::{MonotonicClockExt, SystemClockExt};

use super::ctx::WasiCtx;
use super::guest::GuestMemory;
use super::types::{clockid, Errno, WasiResult};

/// The clocks a guest may read. Monotonic time counts from the context's
/// creation, so it says nothing about the host's uptime.
pub(crate) struct Clocks {
    system: SystemClock,
    monotonic: MonotonicClock,
    origin: Instant,
}

impl Clocks {
    pub fn new() -> Clocks {
        let monotonic = MonotonicClock::new(ambient_authority());
        let origin = monotonic.now();
        Clocks { system: SystemClock::new(ambient_authority()), monotonic, origin }
    }

    /// The time of clock `id` in ns.
    pub fn now(&self, id: u32) -> WasiResult<u64> {
        let d = match id {
            clockid::REALTIME => self
                .system
                .now()
                .duration_since(SystemTime::from_std(std::time::UNIX_EPOCH))
                .map_err(|_| Errno::Overflow)?,
            clockid::MONOTONIC => self.monotonic.now().duration_since(self.origin),
            clockid::PROCESS_CPUTIME_ID => cpu_time(libc::CLOCK_PROCESS_CPUTIME_ID)?,
            clockid::THREAD_CPUTIME_ID => cpu_time(libc::CLOCK_THREAD_CPUTIME_ID)?,
            _ => return Err(Errno::Inval),
        };
        u64::try_from(d.as_nanos()).map_err(|_| Errno::Overflow)
    }

    /// The resolution of clock `id` in ns.
    pub fn resolution(&self, id: u32) -> WasiResult<u64> {
        let d = match id {
            clockid::REALTIME => self.system.resolution(),
            clockid::MONOTONIC => self.monotonic.resolution(),
            clockid::PROCESS_CPUTIME_ID => cpu_resolution(libc::CLOCK_PROCESS_CPUTIME_ID)?,
            clockid::THREAD_CPUTIME_ID => cpu_resolution(libc::CLOCK_THREAD_CPUTIME_ID)?,
            _ => return Err(Errno::Inval),
        };
        Ok((d.as_nanos() as u64).max(1))
    }
}

/// CPU time of the process or thread: std and cap-std have no such clock.
fn cpu_time(clock: libc::clockid_t) -> WasiResult<Duration> {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec for the call.
    if unsafe { libc::clock_gettime(clock, &mut ts) } != 0 {
        return Err(Errno::from(std::io::Error::last_os_error()));
    }
    Ok(Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32))
}

fn cpu_resolution(clock: libc::clockid_t) -> WasiResult<Duration> {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: as in `cpu_time`.
    if unsafe { libc::clock_getres(clock, &mut ts) } != 0 {
        return Err(Errno::from(std::io::Error::last_os_error()));
    }
    Ok(Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32))
}

pub fn clock_res_get(cx: &mut WasiCtx, mem: &mut GuestMemory<'_>, id: u32, out: u32) -> WasiResult {
    let res = cx.clocks.resolution(id)?;
    mem.write_u64(out, res)
}

pub fn clock_time_get(cx: &mut WasiCtx, mem: &mut GuestMemory<'_>, id: u32, _precision: u64, out: u32) -> WasiResult {
    let now = cx.clocks.now(id)?;
    mem.write_u64(out, now)
}
