// Turns off V8's allocation-site pretenuring for a serving process (issue 42). V8 watches how many of
// an allocation site's objects survive a young-generation collection; past a threshold it allocates
// that site's objects straight in the old generation from then on. node:http allocates a request's
// objects (IncomingMessage, ServerResponse, their stream states, tick objects) at a few sites, and a
// collection that comes while many requests are in flight (a burst of connections, start-up) can tip
// them over. From then on every request's objects are born old: they die there, old-to-young pointers
// keep their young parts alive through each scavenge (4-18 ms instead of 0.6-1.3), and mark-compacts
// come every two seconds. On a 2-core machine that state took about one snip process of two (4 of 8
// starts in one hour), for its whole life, at 1.6-2.2x the CPU per answer; with pretenuring off, 0 of 8
// (bench/README.md). Objects that do live long (the link cache) are copied once more on their way to
// the old generation instead: nothing measurable.
import { setFlagsFromString } from "node:v8";

/** Called before the server allocates its first request; the flag holds for the process (its worker threads too). Setting it again changes nothing. */
export function noPretenuring(): void {
  setFlagsFromString("--no-allocation-site-pretenuring");
}
