// Single sign-on on the sign-in page: the instance-wide provider's "Sign in with …" button, "Continue with single
// sign-on" from the form's email for Enterprise connections (only when one exists), and what a refused sign-in
// (?sso_error=) means in words.
import { useEffect, useState } from "react";
import type { SsoOptionsReply } from "@contract/sso";
import { call, snip } from "../shared/api";
import { Alert } from "../shared/ui";
import { emailProblem } from "../../../src/contract/form-rules";

export type SsoOptions = Omit<SsoOptionsReply, "status">;

export function useSsoOptions(): SsoOptions | null {
  const [options, setOptions] = useState<SsoOptions | null>(null);
  useEffect(() => {
    call(snip.GET("/api/auth/sso/options"), true).then(setOptions, () =>
      setOptions({ instance: null, password_sign_in: true, password_sign_up: true, email_sso: false }),
    );
  }, []);
  return options;
}

/** Full-page navigations: the server answers with a redirect to the provider. */
export function startSso(query: { email?: string; instance?: boolean }): void {
  const q = query.instance ? "instance=1" : `email=${encodeURIComponent(query.email ?? "")}`;
  window.location.assign(`/api/auth/sso/start?${q}`);
}

const REASONS: Record<string, string> = {
  state: "The sign-in expired or was started in another browser. Start again.",
  nonce: "The identity provider's answer did not belong to this sign-in. Start again.",
  issuer: "The answer came from another identity provider than the one set up.",
  audience: "The identity provider's answer was meant for another application.",
  email_unverified: "Your identity provider has not verified your email address.",
  email_missing: "Your identity provider did not give an email address.",
  domain: "Your address is not on a domain of this single sign-on connection.",
  identity: "This address is already used by another person at your identity provider. Ask your administrator.",
  denied: "The identity provider refused the sign-in.",
  provider: "The identity provider could not be reached or answered wrongly. Try again later.",
  provider_address: "The identity provider's address is not allowed.",
  deprovisioned: "Your organisation's directory has deactivated your access to this team. Ask your administrator.",
};

/** The sign-in page's words for ?sso_error= (and ?reason=), or null. */
export function ssoErrorText(params: URLSearchParams): string | null {
  const code = params.get("sso_error");
  if (!code) return null;
  if (code === "sso_failed") return `Single sign-on failed: ${REASONS[params.get("reason") ?? ""] ?? "try again."}`;
  if (code === "not_found") return "No single sign-on is set up for this address: sign in with your password.";
  if (code === "limit_reached") return "Your organisation's team is full: ask its owner to make room.";
  if (code === "account_inactive") return "This account is suspended.";
  return "Single sign-on failed: try again.";
}

export function InstanceButton({ options }: { options: SsoOptions | null }) {
  if (!options?.instance) return null;
  return (
    <button type="button" className="btn btn-primary btn-block" onClick={() => startSso({ instance: true })} data-testid="sso-instance">
      Sign in with {options.instance.name}
    </button>
  );
}

const TYPED = "snip.sso-email";

/**
 * "Continue with single sign-on" under the sign-in form, from the address typed in its one email box (the address
 * decides the organisation's provider). The address is kept for this tab: an address no connection serves comes
 * back to the sign-in page (?sso_error=not_found) with it still typed.
 */
export function SsoContinue({ email, onMissing }: { email: string; onMissing: (message: string) => void }) {
  function go() {
    const typed = email.trim();
    if (emailProblem(typed)) return onMissing("Enter your work email above, then continue with single sign-on");
    try {
      sessionStorage.setItem(TYPED, typed);
    } catch {
      // Storage refused (a private window's quota): the address is typed again after a refusal.
    }
    startSso({ email: typed });
  }
  return (
    <button type="button" className="btn btn-secondary btn-block sso-continue" onClick={go} data-testid="sso-continue">
      Continue with single sign-on
    </button>
  );
}

/** The address typed before a single sign-on that came back refused, once (else ""). */
export function typedBeforeSso(params: URLSearchParams): string {
  try {
    const typed = params.get("sso_error") ? (sessionStorage.getItem(TYPED) ?? "") : "";
    sessionStorage.removeItem(TYPED);
    return typed;
  } catch {
    return "";
  }
}

/**
 * The sign-in page's single sign-on part above the password form: a refusal's words, and the instance's provider
 * with the rule between when there is one (nothing at all on an instance without single sign-on).
 */
export function SsoSignIn({ options, params }: { options: SsoOptions | null; params: URLSearchParams }) {
  const error = ssoErrorText(params);
  return (
    <>
      {error ? <Alert testId="sso-error">{error}</Alert> : null}
      {options?.instance ? (
        <>
          <div className="sso-entry">
            <InstanceButton options={options} />
          </div>
          {options.password_sign_in === false ? (
            <p className="muted small">Password sign-in is off on this service; operators' break-glass accounts still use it below.</p>
          ) : null}
          <div className="auth-divider" role="separator">
            <span>or with a password</span>
          </div>
        </>
      ) : null}
    </>
  );
}
