// Preloaded into a `snip serve` child (node --import): the process SIGKILLs itself right after it has
// sent its KILL_AFTER_ANSWERS-th 302 (the answer's bytes are on the socket, nothing after it has run).
// With KILL_MID_TURN=1 it dies instead inside the first answer past that count that shares its
// event-loop turn with an earlier one: the turn's clicks are journaled, its answers not yet sent.
import { ServerResponse } from "node:http";

const after = Number(process.env.KILL_AFTER_ANSWERS);
const midTurn = process.env.KILL_MID_TURN === "1";
let answered = 0;
/** An answer was ended in the synchronous run that is still going (cleared by the next microtask checkpoint). */
let inRun = false;
const end = ServerResponse.prototype.end;
ServerResponse.prototype.end = function (...args) {
  if (midTurn && this.statusCode === 302) {
    if (answered >= after && inRun) process.kill(process.pid, "SIGKILL");
    if (!inRun) {
      inRun = true;
      queueMicrotask(() => (inRun = false));
    }
  }
  const r = end.apply(this, args);
  // end() leaves the socket's flush to a nextTick queued before this one.
  if (this.statusCode === 302 && ++answered === after && !midTurn) process.nextTick(() => process.kill(process.pid, "SIGKILL"));
  return r;
};
