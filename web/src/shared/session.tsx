// Who is signed in: loaded once from /api/auth/session, updated after sign-in, sign-up and sign-out.
import { accountApi } from "./account-api";
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from "react";

import type { User } from "@contract/accounts";

interface SessionState {
  /** undefined while the first session call is in flight. */
  user: User | null | undefined;
  error: string | null;
  setUser: (u: User | null) => void;
  refresh: () => Promise<void>;
  signOut: () => Promise<void>;
  /** Sends the sign-out at once; signOut() (the sign-out page) waits for that same request, then forgets the user. */
  beginSignOut: () => void;
}

const SessionContext = createContext<SessionState | null>(null);

export function SessionProvider({ children }: { children: ReactNode }) {
  const [user, setUser] = useState<User | null | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);

  const refresh = useCallback(async () => {
    try {
      setUser(await accountApi.session());
      setError(null);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
      setUser((u) => (u === undefined ? null : u));
    }
  }, []);

  const leaving = useRef<Promise<void> | null>(null);
  const beginSignOut = useCallback(() => {
    leaving.current ??= accountApi.logout().then(
      () => undefined,
      () => undefined,
    );
  }, []);
  const signOut = useCallback(async () => {
    beginSignOut();
    await leaving.current;
    leaving.current = null;
    setUser(null);
  }, [beginSignOut]);

  useEffect(() => {
    void refresh();
  }, [refresh]);

  const value = useMemo(() => ({ user, error, setUser, refresh, signOut, beginSignOut }), [user, error, refresh, signOut, beginSignOut]);
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionState {
  const s = useContext(SessionContext);
  if (!s) throw new Error("useSession outside SessionProvider");
  return s;
}
