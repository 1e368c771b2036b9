//! Job objects: a prepared child is put in a job of its own that is killed
//! as one, and that Windows kills when its last handle closes, so the
//! LLM CLI's tree also dies with the worker.

use std::os::windows::io::{AsHandle, AsRawHandle, FromRawHandle, OwnedHandle};
use std::os::windows::process::CommandExt;
use std::process::{Child, Command};

use windows_sys::Win32::Foundation::{
    SetHandleInformation, HANDLE_FLAG_INHERIT, INVALID_HANDLE_VALUE,
};
use windows_sys::Win32::System::Console::{
    GetStdHandle, STD_ERROR_HANDLE, STD_INPUT_HANDLE, STD_OUTPUT_HANDLE,
};
use windows_sys::Win32::System::JobObjects::{
    AssignProcessToJobObject, CreateJobObjectW, JobObjectExtendedLimitInformation,
    SetInformationJobObject, TerminateJobObject, JOBOBJECT_EXTENDED_LIMIT_INFORMATION,
    JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
};
use windows_sys::Win32::System::Threading::{
    TerminateProcess, CREATE_BREAKAWAY_FROM_JOB, CREATE_NEW_PROCESS_GROUP, CREATE_NO_WINDOW,
    DETACHED_PROCESS,
};

/// Out of the agent's job first: a hook's children are in the job of the
/// agent that ran it, and a job with kill-on-close would take the worker
/// with the agent. A job that forbids breaking away fails the spawn, so it
/// is tried again inside the job (libuv's jobs let grandchildren out anyway).
pub(super) fn spawn_detached(cmd: &mut Command) -> std::io::Result<Child> {
    keep_std_handles_from_children();
    let flags = DETACHED_PROCESS | CREATE_NEW_PROCESS_GROUP;
    cmd.creation_flags(flags | CREATE_BREAKAWAY_FROM_JOB)
        .spawn()
        .or_else(|_| cmd.creation_flags(flags).spawn())
}

/// A hook's stdin, stdout and stderr are the agent's pipes, inherited and
/// so inheritable, and std starts every child with inheritance on: a
/// detached worker would hold the agent's pipes open, and an agent that
/// waits for them to close would wait for the worker (seen under Wine: the
/// hook returned, its caller waited until the worker ended). The worker gets
/// NUL for its own; a later child given `Stdio::inherit` still gets these,
/// as std duplicates them for it.
fn keep_std_handles_from_children() {
    for id in [STD_INPUT_HANDLE, STD_OUTPUT_HANDLE, STD_ERROR_HANDLE] {
        // SAFETY: a handle of this process or null/invalid, which the
        // call refuses harmlessly.
        unsafe {
            let handle = GetStdHandle(id);
            if !handle.is_null() && handle != INVALID_HANDLE_VALUE {
                SetHandleInformation(handle, HANDLE_FLAG_INHERIT, 0);
            }
        }
    }
}

/// No console window flashes up, and Ctrl+C in the agent's console does
/// not reach the child.
pub(super) fn prepare(command: &mut Command) {
    command.creation_flags(CREATE_NEW_PROCESS_GROUP | CREATE_NO_WINDOW);
}

/// `job` is `None` when no job could be made: then only the child itself is
/// killed, through its own handle (`None` too if even that could not be
/// duplicated: the child is then left to end by itself). A grandchild
/// started between the spawn and the assignment stays out of the job; the
/// CLIs thehook runs start theirs later than that.
pub(super) struct Tree {
    job: Option<OwnedHandle>,
    child: Option<OwnedHandle>,
}

impl Tree {
    pub(super) fn of(child: &Child) -> Tree {
        let own = child.as_handle().try_clone_to_owned().ok();
        let job = own.as_ref().and_then(|own| {
            kill_on_close_job().filter(|job| {
                // SAFETY: both handles are open and owned for this call.
                unsafe { AssignProcessToJobObject(job.as_raw_handle(), own.as_raw_handle()) != 0 }
            })
        });
        Tree { job, child: own }
    }

    pub(super) fn kill(&self) {
        // SAFETY: handles owned by self; killing what is gone already fails
        // harmlessly.
        unsafe {
            match (&self.job, &self.child) {
                (Some(job), _) => {
                    TerminateJobObject(job.as_raw_handle(), 1);
                }
                (None, Some(child)) => {
                    TerminateProcess(child.as_raw_handle(), 1);
                }
                (None, None) => {}
            }
        }
    }
}

fn kill_on_close_job() -> Option<OwnedHandle> {
    // SAFETY: a new unnamed job with default security; the handle is owned
    // from here on and closed on drop.
    let job = unsafe {
        let raw = CreateJobObjectW(std::ptr::null(), std::ptr::null());
        if raw.is_null() {
            return None;
        }
        OwnedHandle::from_raw_handle(raw)
    };
    // SAFETY: a C structure of integers and pointers, for which all zeros
    // is a valid value (no limits set), as Windows' own samples start it.
    let mut limits: JOBOBJECT_EXTENDED_LIMIT_INFORMATION = unsafe { std::mem::zeroed() };
    limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
    // SAFETY: `limits` is the structure this information class names.
    let set = unsafe {
        SetInformationJobObject(
            job.as_raw_handle(),
            JobObjectExtendedLimitInformation,
            (&limits as *const JOBOBJECT_EXTENDED_LIMIT_INFORMATION).cast(),
            std::mem::size_of::<JOBOBJECT_EXTENDED_LIMIT_INFORMATION>() as u32,
        )
    };
    (set != 0).then_some(job)
}
