// Opens a short link over real HTTP with exactly the headers given (node:http adds no User-Agent).
import { type Agent, request } from "node:http";

export const UA = {
  iphone: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1",
  android: "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36",
  windows: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
  ipad: "Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1",
  googlebot: "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
  curl: "curl/8.5.0",
} as const;

/** GETs baseUrl + path and resolves with the status code (redirects are not followed); `agent`: keep-alive connections to reuse. */
export function visit(baseUrl: string, path: string, headers: Record<string, string> = {}, agent?: Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(baseUrl + path, { method: "GET", headers, ...(agent ? { agent } : {}) }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end();
  });
}
