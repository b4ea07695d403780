-- A failed attempt's error code means different things on iOS and on Android (the Tencent and AMap SDKs number
-- their errors per platform), so the failure history keeps the platform of the device: 'ios', 'android' or
-- 'unknown', from the submission's actor.platform or else actor.os. Rows projected before this column existed say
-- 'unknown' and keep the category of the iOS-only catalogue until 'geoledger replay' recomputes both from the log.
ALTER TABLE projections.failures ADD COLUMN platform text NOT NULL DEFAULT 'unknown';
