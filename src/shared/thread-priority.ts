// A worker thread's CPU priority: lowered, so that the event loop answering redirects wins the cores while the
// thread works (QR images, threat feeds).
import { readlinkSync } from "node:fs";
import { setPriority } from "node:os";

/**
 * Sets the calling thread's nice value. Linux: setpriority() on a thread id applies to that thread alone
 * (/proc/thread-self names it). Elsewhere the thread keeps the process's priority.
 */
export function lowerThreadPriority(nice: number): void {
  try {
    const tid = Number(readlinkSync("/proc/thread-self").split("/").pop());
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, nice);
  } catch {
    // not Linux, or /proc not mounted
  }
}
