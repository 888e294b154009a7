// Preloaded into a `snip serve` child (node --import): the process SIGKILLs itself right after it has
// sent its KILL_AFTER_ANSWERS-th 302 (the answer's bytes are on the socket, nothing after it has run).
import { ServerResponse } from "node:http";

const after = Number(process.env.KILL_AFTER_ANSWERS);
let answered = 0;
const end = ServerResponse.prototype.end;
ServerResponse.prototype.end = function (...args) {
  const r = end.apply(this, args);
  // end() leaves the socket's flush to a nextTick queued before this one.
  if (this.statusCode === 302 && ++answered === after) process.nextTick(() => process.kill(process.pid, "SIGKILL"));
  return r;
};
