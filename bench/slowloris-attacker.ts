// The slowloris for bench/slowloris.ts, in a child process of its own (the load generator's event loop
// stays free): keeps N sockets open to the server, each sending a request line and then one header
// line a second, never finishing; a socket the server closes is opened again after a second (as the
// classic tool does on its next round). Sockets are spread over K loopback source addresses
// (127.1.x.y), so one address or many can be played.
// Args: <port> <sockets> <addresses>. IPC: {type:"start"} / {type:"stop"}; {type:"count"} answers with
// the sockets open now and, since start, the sockets opened, closed with an answer (a timeout's 400)
// and closed unanswered (refused at accept).
import { connect, type Socket } from "node:net";

const [portArg, socketsArg, addressesArg] = process.argv.slice(2);
const port = Number(portArg);
const sockets = Number(socketsArg);
const addresses = Number(addressesArg);
const TRICKLE_MS = 1_000;
const REOPEN_MS = 1_000;

let running = false;
const open = new Set<Socket>();
const counts = { opened: 0, answered: 0, refused: 0 };

const addressOf = (i: number) => {
  const k = i % addresses;
  return `127.1.${(k >> 8) & 255}.${(k & 255) + 1}`;
};

function attack(i: number): void {
  if (!running) return;
  const socket = connect({ port, host: "127.0.0.1", localAddress: addressOf(i) });
  let header = 0;
  let answered = false;
  let timer: NodeJS.Timeout | undefined;
  counts.opened++;
  open.add(socket);
  socket.on("error", () => {});
  socket.on("data", () => (answered = true));
  socket.once("connect", () => {
    socket.write(`GET /slowloris-${i} HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: Mozilla/5.0 (slowloris)\r\n`);
    timer = setInterval(() => socket.writable && socket.write(`X-a${header++}: b\r\n`), TRICKLE_MS);
  });
  socket.once("close", () => {
    clearInterval(timer);
    open.delete(socket);
    if (!running) return;
    if (answered) counts.answered++;
    else counts.refused++;
    setTimeout(() => attack(i), REOPEN_MS);
  });
}

process.on("message", (msg: { type?: string }) => {
  if (msg.type === "start") {
    running = true;
    counts.opened = counts.answered = counts.refused = 0;
    for (let i = 0; i < sockets; i++) attack(i);
    process.send?.({ type: "start" });
  } else if (msg.type === "stop") {
    running = false;
    for (const s of open) s.destroy();
    process.send?.({ type: "stop" });
  } else if (msg.type === "count") {
    process.send?.({ type: "count", open: open.size, ...counts });
  }
});
process.send?.({ type: "ready" });
process.once("disconnect", () => process.exit(0));
