// The API sources by name (the CSV/JSON file source is registered beside them by the import jobs).
import type { SourceFactory } from "../source.js";
import { bitlySource } from "./bitly.js";
import { dubSource } from "./dub.js";
import { kuttSource } from "./kutt.js";
import { shlinkSource } from "./shlink.js";
import { yourlsSource } from "./yourls.js";

export type ApiSourceName = "bitly" | "shlink" | "yourls" | "kutt" | "dub";

export const API_SOURCES: Record<ApiSourceName, SourceFactory> = {
  bitly: bitlySource,
  shlink: shlinkSource,
  yourls: yourlsSource,
  kutt: kuttSource,
  dub: dubSource,
};
