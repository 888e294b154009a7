// `snip team list E` as a real process: an account's members, pending invitations and memberships.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { snip } from "../helpers/cli.js";
import { startTestServer } from "../helpers/server.js";
import { signedInClient } from "../helpers/client.js";
import { linkIn, readOutbox, tokenOf } from "../helpers/mail.js";

it("snip team list shows members, pending invitations and memberships apart", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "snip-team-cli-"));
  const server = await startTestServer({ dataDir });
  try {
    const owner = await signedInClient(server, "boss@example.com", "business");
    const member = await signedInClient(server, "mate@example.com", "free");
    await owner.post("/api/team/invitations", { email: "mate@example.com" });
    const token = tokenOf(
      linkIn(
        readOutbox(server.outboxDir).find((m) => m.includes("To: mate@example.com"))!,
        "/app/invitations/accept?token=",
      ),
    );
    expect((await member.post("/api/invitations/accept", { token })).status).toBe(200);
    expect((await owner.post("/api/team/invitations", { email: "later@example.com" })).status).toBe(201);
  } finally {
    await server.close();
  }
  const boss = snip(["team", "list", "boss@example.com"], { DATA_DIR: dataDir });
  expect(boss.stderr).toBe("");
  expect(boss.code).toBe(0);
  expect(boss.stdout).toMatch(
    /^members \(1\):\n {2}mate@example\.com joined \S+\npending invitations \(1\):\n {2}later@example\.com sent \S+ expires \S+\nmember of \(0\):\n$/,
  );
  const mate = snip(["team", "list", "mate@example.com"], { DATA_DIR: dataDir });
  expect(mate.stdout).toMatch(/^members \(0\):\npending invitations \(0\):\nmember of \(1\):\n {2}boss@example\.com joined \S+\n$/);
  const ghost = snip(["team", "list", "ghost@example.com"], { DATA_DIR: dataDir });
  expect(ghost).toMatchObject({ code: 1, stderr: "snip: no user with email ghost@example.com\n" });
});
