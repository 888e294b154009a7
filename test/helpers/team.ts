// Accounts for tests that need their ids, and a team joined the way a member joins: through the emailed invitation.
import type { TestServer } from "./server.js";
import { type ApiClient, signedInClient } from "./client.js";
import { linkIn, readOutbox, tokenOf } from "./mail.js";

export interface TestAccount {
  client: ApiClient;
  email: string;
  id: string;
}

/** A signed-in account on `plan`, with its user id. */
export async function testAccount(server: TestServer, email: string, plan = "free"): Promise<TestAccount> {
  const client = await signedInClient(server, email, plan);
  return { client, email, id: (await client.get("/api/profile")).body.user.id as string };
}

/** `member` joins `owner`'s team: invited, then accepting through the link in the email (the outbox without SMTP_URL). */
export async function joinTeam(server: TestServer, owner: TestAccount, member: TestAccount): Promise<void> {
  const invited = await owner.client.post("/api/team/invitations", { email: member.email });
  if (invited.status !== 201) throw new Error(`invitation failed: ${invited.status} ${invited.text}`);
  // The newest email to the member: an earlier one may be another team's invitation (or this team's, used before).
  const raw = readOutbox(server.outboxDir)
    .filter((m) => m.includes(`To: ${member.email}`))
    .at(-1);
  const accepted = await member.client.post("/api/invitations/accept", { token: tokenOf(linkIn(raw!, "/app/invitations/accept?token=")) });
  if (accepted.status !== 200) throw new Error(`accepting failed: ${accepted.status} ${accepted.text}`);
}
