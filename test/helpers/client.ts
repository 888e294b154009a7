// A small HTTP client for tests: keeps the session cookie and sends the CSRF token like the dashboard.
export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export class ApiClient {
  cookie: string | null = null;
  /** The pending sign-in cookie (snip_2fa) a login of an account with two-factor sign-in sets. */
  pending: string | null = null;
  csrf: string | null = null;

  constructor(readonly baseUrl: string) {}

  async request<T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse<T>> {
    const h: Record<string, string> = { accept: "application/json", ...headers };
    const cookies = [this.cookie, this.pending].filter((c): c is string => c !== null);
    if (cookies.length > 0) h.cookie = cookies.join("; ");
    if (this.csrf && method !== "GET" && method !== "HEAD" && !("x-csrf-token" in headers)) h["x-csrf-token"] = this.csrf;
    let payload: string | Blob | undefined;
    if (Buffer.isBuffer(body)) payload = new Blob([new Uint8Array(body)]);
    else if (typeof body === "string") payload = body;
    else if (body !== undefined) {
      payload = JSON.stringify(body);
      h["content-type"] ??= "application/json";
    }
    const res = await fetch(this.baseUrl + path, { method, headers: h, body: payload, redirect: "manual" });
    for (const c of res.headers.getSetCookie()) {
      const m = /^snip_sid=([^;]*)/.exec(c);
      if (m) this.cookie = `snip_sid=${m[1]}`;
      const p = /^snip_2fa=([^;]*)/.exec(c);
      if (p) this.pending = p[1] ? `snip_2fa=${p[1]}` : null;
    }
    const text = await res.text();
    let parsed: any = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      /* not JSON */
    }
    if (parsed && typeof parsed === "object" && typeof parsed.csrf_token === "string") this.csrf = parsed.csrf_token;
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  }

  get<T = any>(path: string, headers?: Record<string, string>) {
    return this.request<T>("GET", path, undefined, headers);
  }
  post<T = any>(path: string, body?: unknown, headers?: Record<string, string>) {
    return this.request<T>("POST", path, body, headers);
  }
  patch<T = any>(path: string, body?: unknown) {
    return this.request<T>("PATCH", path, body);
  }
  put<T = any>(path: string, body?: unknown, headers?: Record<string, string>) {
    return this.request<T>("PUT", path, body, headers);
  }
  delete<T = any>(path: string, body?: unknown) {
    return this.request<T>("DELETE", path, body);
  }

  /** Fetches the session (cookie + CSRF token). */
  async init(): Promise<this> {
    await this.get("/api/auth/session");
    return this;
  }

  async signup(email: string, password = "correct horse 1", name?: string) {
    if (!this.csrf) await this.init();
    return this.post("/api/auth/signup", { email, password, ...(name ? { name } : {}) });
  }

  async login(email: string, password = "correct horse 1") {
    if (!this.csrf) await this.init();
    return this.post("/api/auth/login", { email, password });
  }
}

/** A signed-in client for a user created directly through the account service. */
export async function signedInClient(
  server: { url: string; ctx: { accounts: { create(i: { email: string; password: string; plan?: string; verified?: boolean }): Promise<unknown> } } },
  email: string,
  plan = "free",
  password = "correct horse 1",
): Promise<ApiClient> {
  await server.ctx.accounts.create({ email, password, plan, verified: true });
  const c = new ApiClient(server.url);
  const r = await c.login(email, password);
  if (r.status !== 200) throw new Error(`login failed: ${r.status} ${r.text}`);
  return c;
}

/** A client of the external API: every request carries the key as `Authorization: Bearer` (no session cookie, no CSRF token). */
export class KeyClient extends ApiClient {
  constructor(
    baseUrl: string,
    readonly key: string,
  ) {
    super(baseUrl);
  }

  override request<T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse<T>> {
    return super.request<T>(method, path, body, { authorization: `Bearer ${this.key}`, ...headers });
  }
}
