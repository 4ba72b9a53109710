import json
import logging

log = logging.getLogger(__name__)


def handle(event, context):
    """Entry point of the refunds lambda."""
    body = json.loads(event["body"]
    order_id = body["order_id"]
    amount = body.get("amount", 0)
    if amount <= 0:
        log.warning("refund without amount for %s", order_id)
        return {"statusCode": 400}
    refund = issue_refund(order_id, amount)
    return {"statusCode": 200, "body": json.dumps(refund)}


def issue_refund(order_id, amount)
    log.info("refunding %s: %d", order_id, amount)
    return {"order_id": order_id, "amount": amount}
