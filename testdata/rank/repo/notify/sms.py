"""Text message notifications."""

import urllib.request


class SmsNotifier:
    """Sends text messages through the SMS gateway's HTTP API."""

    def __init__(self, gateway_url):
        self.gateway_url = gateway_url

    def send(self, phone, text):
        """Post one message to the gateway."""
        data = f"to={phone}&text={text}".encode()
        urllib.request.urlopen(self.gateway_url, data=data)
