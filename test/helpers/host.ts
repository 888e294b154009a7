// Requests with a Host header of the test's choosing (fetch cannot set Host; node:http can).
import { request } from "node:http";

/** A GET with the given Host header (fetch cannot set Host): status and Location. */
export function hit(baseUrl: string, path: string, host: string, method = "GET"): Promise<{ status: number; location: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(baseUrl + path, { method, headers: { host, accept: "text/html" } }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, location: res.headers.location, body }));
    });
    req.on("error", reject);
    req.end();
  });
}
