// Requests with a Host header of the test's choosing (fetch cannot set Host; node:http can).
import { request } from "node:http";

export interface HostAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  location: string | undefined;
  body: string;
}

/** A request with the given Host header and no other header but those given. */
export function withHost(baseUrl: string, path: string, host: string, method = "GET", headers: Record<string, string> = {}): Promise<HostAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(baseUrl + path, { method, headers: { host, ...headers } }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, location: res.headers.location, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

/** A GET (or `method`) with the given Host header, as a browser asks for a page: status and Location. */
export async function hit(
  baseUrl: string,
  path: string,
  host: string,
  method = "GET",
): Promise<{ status: number; location: string | undefined; body: string }> {
  const { status, location, body } = await withHost(baseUrl, path, host, method, { accept: "text/html" });
  return { status, location, body };
}
