// A real OpenID provider on loopback (the oidc-provider package, its development login and consent pages
// completed programmatically), and a browser that follows the sign-in through snip and the provider with
// its own cookies. The provider's token answers can be tampered with (an ID token re-signed with its own
// key for another audience or issuer), as a compromised or misconfigured provider would send them.
import { createServer, type Server } from "node:http";
import { createSign, generateKeyPairSync, type KeyObject } from "node:crypto";
import Provider from "oidc-provider";

export interface TestAccount {
  email: string;
  email_verified: boolean;
  name?: string;
  groups?: string[];
}

export interface TestClient {
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
}

type Claims = Record<string, unknown>;

export class TestOidc {
  /** Accounts by login name; change them between sign-ins. */
  readonly accounts = new Map<string, TestAccount>();
  /** Rewrites the claims of the next ID tokens (re-signed with the provider's key); null: untouched. */
  tamper: ((claims: Claims) => Claims) | null = null;

  private constructor(
    readonly issuer: string,
    private readonly server: Server,
  ) {}

  static async start(port: number, clients: TestClient[]): Promise<TestOidc> {
    const issuer = `http://127.0.0.1:${port}`;
    const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const jwk = { ...privateKey.export({ format: "jwk" }), kid: "test-key", use: "sig", alg: "RS256" };
    let self: TestOidc | null = null;
    const provider = new Provider(issuer, {
      clients: clients.map((c) => ({ ...c, grant_types: ["authorization_code"], response_types: ["code"], token_endpoint_auth_method: "client_secret_basic" })),
      jwks: { keys: [jwk] },
      claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name", "groups"] },
      pkce: { required: () => true },
      features: { devInteractions: { enabled: true } },
      cookies: { keys: ["test-cookie-key-0123456789"] },
      findAccount: (_ctx: unknown, id: string) => {
        const a = self?.accounts.get(id);
        if (!a) return undefined;
        return { accountId: id, claims: () => ({ sub: id, ...a }) };
      },
    });
    provider.use(async (ctx, next) => {
      await next();
      const body = ctx.body as { id_token?: string } | undefined;
      if (ctx.path === "/token" && ctx.status === 200 && body?.id_token && self?.tamper) body.id_token = resign(body.id_token, self.tamper, privateKey);
    });
    const server = createServer(provider.callback());
    await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
    self = new TestOidc(issuer, server);
    return self;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

function resign(token: string, tamper: (c: Claims) => Claims, key: KeyObject): string {
  const [header, payload] = token.split(".") as [string, string];
  const claims = tamper(JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as Claims);
  const input = `${header}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}`;
  return `${input}.${createSign("RSA-SHA256").update(input).sign(key).toString("base64url")}`;
}

/** A browser's cookies (one jar per origin), enough for snip and the provider on loopback. */
export class Browser {
  private readonly jars = new Map<string, Map<string, string>>();

  private jar(url: URL): Map<string, string> {
    let j = this.jars.get(url.origin);
    if (!j) this.jars.set(url.origin, (j = new Map()));
    return j;
  }

  cookie(url: string | URL, name: string): string | undefined {
    return this.jar(new URL(url)).get(name);
  }

  async fetch(url: string | URL, init: { method?: string; body?: string; headers?: Record<string, string> } = {}): Promise<Response> {
    const u = new URL(url);
    const jar = this.jar(u);
    const headers: Record<string, string> = { ...init.headers };
    if (jar.size) headers.cookie = [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
    if (init.body) headers["content-type"] ??= "application/x-www-form-urlencoded";
    const res = await fetch(u, { method: init.method ?? "GET", body: init.body, headers, redirect: "manual" });
    for (const c of res.headers.getSetCookie()) {
      const m = /^([^=]+)=([^;]*)/.exec(c);
      if (!m) continue;
      const expired = /expires=Thu, 01 Jan 1970/i.test(c) || /max-age=0\b/i.test(c);
      if (expired || m[2] === "") jar.delete(m[1] as string);
      else jar.set(m[1] as string, m[2] as string);
    }
    return res;
  }
}

/**
 * Follows the provider from its authorisation URL: signs in as `login` and consents on its development
 * pages, until it redirects to `callbackPrefix`; returns that callback URL (not yet opened).
 */
export async function throughProvider(browser: Browser, authUrl: string, login: string, callbackPrefix: string): Promise<string> {
  let next = authUrl;
  for (let step = 0; step < 12; step++) {
    if (next.startsWith(callbackPrefix)) return next;
    const res = await browser.fetch(next);
    const location = res.headers.get("location");
    if (location) {
      next = new URL(location, next).href;
      continue;
    }
    const html = await res.text();
    const prompt = /name="prompt" value="(\w+)"/.exec(html)?.[1];
    if (res.status !== 200 || !prompt) throw new Error(`provider answered ${res.status} at ${next}: ${html.slice(0, 300)}`);
    const body = new URLSearchParams(prompt === "login" ? { prompt, login, password: "any" } : { prompt });
    const submitted = await browser.fetch(next, { method: "POST", body: body.toString() });
    const to = submitted.headers.get("location");
    if (!to) throw new Error(`provider answered ${submitted.status} to the ${prompt} form: ${(await submitted.text()).slice(0, 300)}`);
    next = new URL(to, next).href;
  }
  throw new Error("the provider never redirected back");
}
