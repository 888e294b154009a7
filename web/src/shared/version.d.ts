// The package version Vite writes into the bundle (web/vite.config.ts, `define`), shown in the footer.
declare const __SNIP_VERSION__: string;
