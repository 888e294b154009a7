// The live feed (docs/api.md, Live feed): GET /api/analytics/live's query and the events it streams.
import { Type, type Static } from "typebox";

export const LiveQuery = Type.Object(
  {
    owner: Type.Optional(
      Type.String({
        maxLength: 64,
        description: "A team owner's user id: that owner's clicks, for an active member (404 otherwise); default the caller's own",
      }),
    ),
  },
  { additionalProperties: false },
);
export type LiveQueryInput = Static<typeof LiveQuery>;

/** `event: click`: one click on one of the owner's links. Never the visitor's address or user agent. */
export const LiveClickSchema = Type.Object(
  {
    at: Type.String({ description: "ISO time of the click (UTC)" }),
    link_id: Type.String(),
    alias: Type.String(),
    domain: Type.String({ description: "The host shown in the short URL (a custom domain, or the service's own host)" }),
    country: Type.String({ description: 'ISO 3166-1 alpha-2 code, or "" when unknown' }),
    device: Type.String({ description: "desktop, mobile, tablet, console, smarttv, wearable, embedded or bot" }),
    browser: Type.String(),
    os: Type.String(),
    referrer: Type.String({ description: 'The referrer\'s host name, or "" when none was sent or it could not be read' }),
    source: Type.Union([Type.Literal("qr"), Type.Literal("link")], { description: "qr: the visit came from the link's QR code (`?qr=1`)" }),
    destination: Type.String({ description: "Where it went: default, rule:N, ios, android or variant:N (contract/targeting.ts)" }),
    bot: Type.Boolean(),
  },
  { additionalProperties: false },
);
export type LiveClick = Static<typeof LiveClickSchema>;

/** `event: skipped`: clicks left out since the last event because they came faster than the stream sends (LIVE_PER_SECOND). */
export const LiveSkippedSchema = Type.Object({ count: Type.Integer({ minimum: 1 }) }, { additionalProperties: false });
export type LiveSkipped = Static<typeof LiveSkippedSchema>;

/**
 * `event: conversion`: a lead or a sale recorded for one of the owner's links (docs/api.md, Live feed), as it comes;
 * never a customer's name or email. Not capped by LIVE_PER_SECOND; not in the backlog sent at the start.
 */
export const LiveConversionSchema = Type.Object(
  {
    type: Type.Union([Type.Literal("lead"), Type.Literal("sale")]),
    at: Type.String({ description: "ISO time it was recorded (UTC)" }),
    link_id: Type.String(),
    alias: Type.String(),
    domain: Type.String({ description: "The host shown in the short URL" }),
    event_name: Type.String(),
    destination: Type.Union([Type.String(), Type.Null()], { description: "The tracked click's destination (default, rule:N, variant:N...)" }),
    amount: Type.Union([Type.Integer(), Type.Null()], { description: "A sale's amount in minor units of its currency; null for a lead" }),
    currency: Type.Union([Type.String(), Type.Null()], { description: "A sale's ISO 4217 currency (lowercase); null for a lead" }),
  },
  { additionalProperties: false },
);
export type LiveConversion = Static<typeof LiveConversionSchema>;
