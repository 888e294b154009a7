// The invitation a visitor is following, kept across sign-up and email verification, and its page's address.
/** The invitation a visitor is in the middle of accepting (kept across sign-up and email verification). */
const PENDING_INVITATION = "snip.pendingInvitation";

export const pendingInvitation = {
  get(): string | null {
    try {
      return window.localStorage.getItem(PENDING_INVITATION);
    } catch {
      return null;
    }
  },
  set(token: string): void {
    try {
      window.localStorage.setItem(PENDING_INVITATION, token);
    } catch {
      /* private mode: the next= parameter still carries it */
    }
  },
  clear(): void {
    try {
      window.localStorage.removeItem(PENDING_INVITATION);
    } catch {
      /* nothing to clear */
    }
  },
};

export function invitationPath(token: string): string {
  return `/app/invitations/accept?${new URLSearchParams({ token })}`;
}
