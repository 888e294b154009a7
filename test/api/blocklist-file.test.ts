// BLOCKLIST_FILE (docs/operator.md, Destination blocklist): the line formats, the load at start, a reload
// within a few seconds of a change (written in place or replaced by a rename), a removed or unreadable
// file keeping the last good list with the error shown, and a 100,000-line file loaded in slices.
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { type ApiClient, signedInClient } from "../helpers/client.js";
import { within } from "../helpers/wait.js";
import { UA } from "../helpers/visit.js";
import { parseLine, parseList } from "../../src/admin/blocklist-file.js";

describe("BLOCKLIST_FILE lines", () => {
  it("reads host names, URLs, hosts-file lines and comments; counts what is none of them", () => {
    expect(parseLine("Evil.Example.")).toEqual(["evil.example"]);
    expect(parseLine("  bücher.example  ")).toEqual(["xn--bcher-kva.example"]);
    expect(parseLine("https://Login.Evil.example:8443/path?q=1#frag")).toEqual(["login.evil.example"]);
    expect(parseLine("0.0.0.0 ads.example")).toEqual(["ads.example"]);
    expect(parseLine("127.0.0.1\tone.example two.example # trailing comment")).toEqual(["one.example", "two.example"]);
    expect(parseLine(":: v6.example")).toEqual(["v6.example"]);
    expect(parseLine("*.wild.example")).toEqual(["wild.example"]);
    expect(parseLine("198.51.100.23")).toEqual(["198.51.100.23"]);
    expect(parseLine("# a comment")).toEqual([]);
    expect(parseLine("   ")).toEqual([]);
    expect(parseLine("")).toEqual([]);
    for (const bad of ["not a host", "a..b.example", "ex!ample.com", "x".repeat(300), "0.0.0.0 bad!host.example", "mailto:x@example.com", "http://"]) {
      expect(parseLine(bad), bad).toBeNull();
    }
  });

  it("parses a whole file with CRLF endings and counts skipped lines", async () => {
    const list = await parseList("# header\r\na.example\r\n\r\nnot valid!\r\n0.0.0.0 b.example\r\nhttps://c.example/x\r\n");
    expect([...list.hosts].sort()).toEqual(["a.example", "b.example", "c.example"]);
    expect(list.skipped).toBe(1);
  });

  it("loads 100,000 lines without holding the event loop for long", async () => {
    const lines: string[] = [];
    for (let i = 0; i < 100_000; i++)
      lines.push(i % 3 === 0 ? `0.0.0.0 host-${i}.bad.example` : i % 3 === 1 ? `https://h${i}.phish.example/login` : `site-${i}.example # note`);
    const text = lines.join("\n");
    // Other work gets the event loop between slices: count the turns it gets while the file is parsed.
    let parsing = true;
    let turns = 0;
    const other = () => {
      if (!parsing) return;
      turns++;
      setImmediate(other);
    };
    setImmediate(other);
    const list = await parseList(text);
    parsing = false;
    expect(list.hosts.size).toBe(100_000);
    expect(list.skipped).toBe(0);
    // At least one turn per 2,000 lines: no slice holds the loop for more than 2,000 lines' parsing
    // (how long that is, is measured by bench/event-loop.ts).
    expect(turns).toBeGreaterThanOrEqual(100_000 / 2_000);
  });
});

describe.each(ENGINES)("BLOCKLIST_FILE on %s", (engine) => {
  let dir: string;
  let file: string;
  let server: TestServer;
  let ops: ApiClient;

  const status = async () => (await ops.get("/api/admin/blocklist")).body.file;
  const openStatus = async (alias: string) => (await fetch(`${server.url}/${alias}`, { redirect: "manual", headers: { "user-agent": UA.windows } })).status;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "snip-blocklist-"));
    file = join(dir, "blocklist.txt");
    writeFileSync(file, "# start\nfirst.example\n0.0.0.0 hosts-style.example\nhttps://url-style.example/x\nnot a host line\n");
    server = await startTestServer({ engine, env: { BLOCKLIST_FILE: file } });
    ops = await signedInClient(server, "ops@example.com", "business");
    await server.ctx.storage.db.updateTable("users").set({ is_admin: 1 }).where("email", "=", "ops@example.com").execute();
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("is loaded at start: its hosts are refused and shown in the console", async () => {
    const s = await status();
    expect(s).toMatchObject({ path: file, hosts: 3, skipped_lines: 1, error: null });
    expect(Date.parse(s.loaded_at)).toBeGreaterThan(0);
    for (const url of ["https://first.example/", "https://www.hosts-style.example/", "http://url-style.example/"]) {
      const r = await ops.post("/api/links", { url });
      expect(r.status, url).toBe(400);
      expect(r.body.code).toBe("destination_blocked");
    }
    // The console lists its own hosts only; a file host cannot be removed there.
    expect((await ops.get("/api/admin/blocklist")).body.hosts).toEqual([]);
    expect((await ops.delete("/api/admin/blocklist/first.example")).status).toBe(404);
  });

  it("is read again within a few seconds of a change, and links to a newly listed host stop redirecting", async () => {
    const made = await ops.post("/api/links", { url: "https://second.example/page" });
    expect(made.status).toBe(201);
    const alias = made.body.link.alias as string;
    expect(await openStatus(alias)).toBe(302);
    expect(await openStatus(alias)).toBe(302);
    const before = (await status()).loaded_at;
    const started = Date.now();
    writeFileSync(file, "first.example\nsecond.example\n");
    const s = await within(5000, status, (x) => x.hosts === 2);
    expect(s).toMatchObject({ hosts: 2, skipped_lines: 0, error: null });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(s.loaded_at >= before).toBe(true);
    expect(await openStatus(alias)).toBe(410);
    // No longer listed: allowed again.
    expect((await ops.post("/api/links", { url: "https://hosts-style.example/" })).status).toBe(201);
  });

  it("follows an editor's save by rename", async () => {
    const tmp = join(dir, "blocklist.txt.new");
    writeFileSync(tmp, "first.example\nsecond.example\nrenamed.example\n");
    renameSync(tmp, file);
    expect((await within(5000, status, (x) => x.hosts === 3)).hosts).toBe(3);
    expect(server.ctx.blocklist.match("a.renamed.example")).toBe("renamed.example");
  });

  it("keeps the last good list when the file is removed or unreadable, shows the error, and recovers", async () => {
    rmSync(file);
    const gone = await within(5000, status, (x) => x.error !== null);
    expect(gone.error).toMatch(/ENOENT/);
    expect(gone.hosts).toBe(3);
    expect((await ops.post("/api/links", { url: "https://renamed.example/" })).body.code).toBe("destination_blocked");

    // A directory in its place cannot be read either (root reads any mode, so no chmod here).
    mkdirSync(file);
    const dirErr = await within(5000, status, (x) => x.error !== null && !/ENOENT/.test(x.error));
    expect(dirErr.error).toMatch(/not a regular file/);
    expect(server.ctx.blocklist.match("renamed.example")).toBe("renamed.example");
    rmSync(file, { recursive: true });

    writeFileSync(file, "back.example\n");
    const back = await within(5000, status, (x) => x.error === null);
    expect(back).toMatchObject({ hosts: 1, error: null });
    expect(server.ctx.blocklist.match("renamed.example")).toBeNull();
    expect(server.ctx.blocklist.match("back.example")).toBe("back.example");
  });
});
