// Every internal receiver address form docs/webhooks.md names, as a user would type it, with the class the SSRF guard must see.
/** Every internal address form docs/webhooks.md names, as typed by a user, with the class the guard must see. */
export const INTERNAL_URLS: [string, string][] = [
  ["https://127.0.0.1/", "loopback"],
  ["https://127.255.255.254/", "loopback"],
  ["https://2130706433/", "loopback"], // decimal
  ["https://0177.0.0.1/", "loopback"], // octal
  ["https://0x7f.0.0.1/", "loopback"], // hex
  ["https://0x7f000001/", "loopback"], // hex, one number
  ["https://127.1/", "loopback"], // short form
  ["https://[::1]/", "loopback"],
  ["https://10.1.2.3/", "private"],
  ["https://172.16.0.1/", "private"],
  ["https://172.31.255.255/", "private"],
  ["https://192.168.1.1/", "private"],
  ["https://169.254.169.254/", "link-local"], // cloud metadata
  ["https://100.64.0.1/", "cgnat"],
  ["https://100.127.255.255/", "cgnat"],
  ["https://224.0.0.1/", "multicast"],
  ["https://239.255.255.250/", "multicast"],
  ["https://240.0.0.1/", "reserved"],
  ["https://255.255.255.255/", "reserved"],
  ["https://192.0.2.1/", "reserved"],
  ["https://198.18.0.1/", "reserved"],
  ["https://0.0.0.0/", "unspecified"],
  ["https://0/", "unspecified"],
  ["https://[::]/", "unspecified"],
  ["https://[fd12:3456::1]/", "unique-local"],
  ["https://[fc00::1]/", "unique-local"],
  ["https://[fe80::1]/", "link-local"],
  ["https://[ff02::1]/", "multicast"],
  ["https://[::ffff:127.0.0.1]/", "ipv4-mapped"],
  ["https://[::ffff:7f00:1]/", "ipv4-mapped"],
  ["https://[::ffff:169.254.169.254]/", "ipv4-mapped"],
  ["https://[::ffff:8.8.8.8]/", "ipv4-mapped"],
  ["https://[64:ff9b::7f00:1]/", "ipv4-mapped"], // NAT64
  ["https://[2002:7f00:1::]/", "ipv4-mapped"], // 6to4
  ["https://[2001:db8::1]/", "reserved"],
];
