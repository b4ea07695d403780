"""Posts a batch and reads a merchant's history back through the client openapi-python-client generated from
/openapi.json, as a batch job would. Prints what it read as one JSON line; exits 1 when an answer is not the
documented one. Usage: post_and_read.py CLIENT_FOLDER BASE_URL INGEST_TOKEN READ_TOKEN CAPTURED_AT"""
import json
import sys
import uuid

sys.path.insert(0, sys.argv[1])
from geoledger_client import AuthenticatedClient  # noqa: E402
from geoledger_client.api.default import get_v1_merchants_id_history, post_v1_events  # noqa: E402
from geoledger_client.models import BatchAnswer, MerchantAddressFixed  # noqa: E402

base, ingest, read, captured_at = sys.argv[2:6]
event_id = str(uuid.uuid4())
submission = MerchantAddressFixed.from_dict({
    "eventId": event_id, "type": "MerchantAddressFixed", "merchantId": "M-client", "purpose": "onboarding",
    "fix": {"lat": 31.2304, "lon": 121.4737, "datum": "gcj02", "horizontalAccuracy": 35, "accuracyAuthorization": "full",
            "provider": "amap", "capturedAt": captured_at, "address": {"city": "上海市", "adcode": "310101"}},
    "actor": {"userId": "sales-17", "app": "onboarding", "os": "iOS 17.2"},
})
with AuthenticatedClient(base_url=base, token=ingest, raise_on_unexpected_status=True) as client:
    answer = post_v1_events.sync(client=client, body=[submission])
if not isinstance(answer, BatchAnswer):
    sys.exit(f"POST /v1/events answered {answer!r}")
with AuthenticatedClient(base_url=base, token=read, raise_on_unexpected_status=True) as client:
    rows = get_v1_merchants_id_history.sync("M-client", client=client, limit=10)
if not isinstance(rows, list):
    sys.exit(f"GET /v1/merchants/M-client/history answered {rows!r}")
print(json.dumps({
    "appended": answer.appended, "status": answer.results[0].status.value, "position": answer.results[0].position,
    "rows": [{"eventId": row.event_id, "eventType": row.event_type, "accuracy": row.accuracy, "lat": row.lat} for row in rows],
    "sent": event_id,
}))
