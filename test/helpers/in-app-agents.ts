// User agents captured from each in-app browser's web view on iOS and on Android (src/deeplinks/in-app-browsers.ts).

const IOS = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148";
const ANDROID =
  "Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/UD1A.231105.004; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/119.0.6045.163 Mobile Safari/537.36";

/** [app, system, user agent] captured from each app's web view. */
export const IN_APP: Array<[string, "ios" | "android", string]> = [
  ["instagram", "ios", `${IOS} Instagram 309.1.1.28.108 (iPhone13,3; iOS 17_1_2; en_US; en; scale=3.00; 1170x2532; 541635890)`],
  ["instagram", "android", `${ANDROID} Instagram 309.0.0.40.113 Android (34/14; 420dpi; 1080x2205; Google/google; Pixel 8; shiba; shiba; en_US; 541635863)`],
  [
    "facebook",
    "ios",
    `${IOS} [FBAN/FBIOS;FBAV/442.0.0.41.109;FBBV/541296596;FBDV/iPhone15,2;FBMD/iPhone;FBSN/iOS;FBSV/17.1.2;FBSS/3;FBID/phone;FBLC/en_US;FBOP/5;FBRV/543004307]`,
  ],
  ["facebook", "android", `${ANDROID} [FB_IAB/FB4A;FBAV/442.0.0.33.110;]`],
  [
    "messenger",
    "ios",
    `${IOS} [FBAN/MessengerForiOS;FBAV/435.0.0.40.109;FBBV/528362041;FBDV/iPhone14,5;FBMD/iPhone;FBSN/iOS;FBSV/17.1.2;FBSS/3;FBCR/;FBID/phone;FBLC/en_US;FBOP/5]`,
  ],
  ["messenger", "android", `${ANDROID} [FB_IAB/Orca-Android;FBAV/434.0.0.26.115;]`],
  [
    "tiktok",
    "ios",
    `${IOS} musical_ly_32.5.0 JsSdk/2.0 NetType/WIFI Channel/App Store ByteLocale/en Region/US ByteFullLocale/en isDarkMode/0 WKWebView/1 RevealType/Dialog BytedanceWebview/d8a21c6`,
  ],
  [
    "tiktok",
    "android",
    `${ANDROID} trill_2023205030 JsSdk/1.0 NetType/WIFI Channel/googleplay AppName/musical_ly app_version/32.5.3 ByteLocale/en ByteFullLocale/en Region/DE Spark/1.4.6.3-bugfix AppVersion/32.5.3 BytedanceWebview/d8a21c6`,
  ],
  ["linkedin", "ios", `${IOS} [LinkedInApp]/9.29.6493`],
  ["linkedin", "android", `${ANDROID} [LinkedInApp]/4.1.881`],
  ["snapchat", "ios", `${IOS} Snapchat/12.60.0.44 (like Safari/8617.2.4.10.8, panda)`],
  ["snapchat", "android", `${ANDROID} Snapchat/12.60.0.38 (like Chrome/119.0.6045.163)`],
  ["x", "ios", `${IOS} Twitter for iPhone/10.16`],
  ["x", "android", `${ANDROID} TwitterAndroid`],
];
