// A small filesystem of the test's own (tmpfs, mounted as root) that the test fills up and frees again.
import { execFileSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync, rmdirSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

function tryMount(dir: string, sizeMb: number): string | null {
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${sizeMb}m,mode=0700`, "tmpfs", dir], { stdio: "pipe" });
    return null;
  } catch (err) {
    const e = err as { stderr?: Buffer; message: string };
    return (e.stderr?.toString().trim() || e.message).split("\n")[0] ?? "mount failed";
  }
}

/** Why a small filesystem cannot be mounted here (not root, no mount permission), or null when it can. */
export function smallFsUnavailable(): string | null {
  if (process.platform !== "linux") return "mounting a tmpfs needs Linux";
  if (process.getuid?.() !== 0) return "mounting a tmpfs needs root (CI runs as root)";
  const dir = mkdtempSync(join(tmpdir(), "snip-fs-probe-"));
  const failed = tryMount(dir, 1);
  if (failed === null) execFileSync("umount", [dir]);
  rmdirSync(dir);
  return failed === null ? null : `mount -t tmpfs failed: ${failed}`;
}

export interface SmallFs {
  dir: string;
  /** Writes a file until the filesystem refuses (ENOSPC); returns the bytes it took. */
  fill(): number;
  /** Removes that file: the space is back. */
  free(): void;
  unmount(): void;
}

export function mountSmallFs(sizeMb: number): SmallFs {
  const dir = mkdtempSync(join(tmpdir(), "snip-fs-"));
  const failed = tryMount(dir, sizeMb);
  if (failed !== null) throw new Error(`mount -t tmpfs failed: ${failed}`);
  const filler = join(dir, "filler");
  return {
    dir,
    fill() {
      const fd = openSync(filler, "a");
      let taken = 0;
      try {
        // Big pieces, then a page at a time: nothing is left.
        for (const size of [1 << 20, 4096]) {
          const piece = Buffer.alloc(size, 1);
          for (;;) {
            try {
              taken += writeSync(fd, piece);
            } catch (err) {
              if ((err as NodeJS.ErrnoException).code === "ENOSPC") break;
              throw err;
            }
          }
        }
      } finally {
        closeSync(fd);
      }
      return taken;
    },
    free() {
      rmSync(filler, { force: true });
    },
    unmount() {
      try {
        execFileSync("umount", [dir], { stdio: "pipe" });
      } catch {
        execFileSync("umount", ["-l", dir], { stdio: "pipe" });
      }
      rmdirSync(dir);
    },
  };
}
