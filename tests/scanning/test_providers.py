"""detect-secrets' provider plugins as we run them: every plugin still finds its format behind our gates, and the
package is imported only when the first text is scanned."""

from __future__ import annotations

import subprocess
import sys

import pytest

from proxy.scanning import providers, scan

HEX = "9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c"
MIXED = "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5bC7dE9fG1hJ3kL5mN7pQ9rS1tU3vW5xY7zA9bC1dE3fG5hJ7kL9mN1pQ3r"

# A fake credential in each plugin's format, in a sentence.
SAMPLES = {
    "an Artifactory token": f"token AKCp8{MIXED[:40]} for the mirror",
    "an AWS access key": "old key ABIAQ3T7X2M9K4P8L5N6 rotated",
    "an Azure storage key": f"DefaultEndpointsProtocol=https;AccountKey={MIXED[:86]}==;EndpointSuffix=x",
    "a Cloudant credential": f"cloudant_password = '{HEX}{HEX}'",
    "a Discord bot token": f"bot M{MIXED[:25]}.{MIXED[30:36]}.{MIXED[40:67]}",
    "a GitHub token": f"ghp_{MIXED[:36]}",
    "a GitLab token": f"pipeline trigger glptt-{MIXED[:40]}",
    "an IBM Cloud key": f"ibm_cloud_iam_key = '{MIXED[:44]}'",
    "an IBM Cloud storage key": f'ibm_cos_hmac_secret_access_key = "{HEX}{HEX[:16]}"',
    "a Mailchimp key": f"list key {HEX}-us12",
    "a PyPI token": f"pypi-AgEIcHlwaS5vcmc{MIXED[:72]}",
    "a SendGrid key": f"SG.{MIXED[:22]}.{MIXED[22:65]}",
    "a Slack token": "alerts to https://hooks.slack.com/services/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",
    "a SoftLayer key": f"softlayer_api_key = {HEX}{HEX}",
    "a Square secret": f"sq0csp-{MIXED[:43]}",
    "a Stripe key": f"sk_live_{MIXED[:24]}",
    "a Telegram bot token": f"12345678:{MIXED[:35]}",
    "a Twilio key": f"AC{HEX}",
}


def test_every_plugin_we_load_has_a_sample() -> None:
    assert {provider.label for provider in providers.providers()} == set(SAMPLES)


@pytest.mark.parametrize(("label", "text"), SAMPLES.items())
def test_each_plugin_finds_its_format_behind_its_gate(label: str, text: str) -> None:
    assert label in {found for found, _, _ in providers.matches(text)}
    finding = scan(text)
    assert finding is not None and finding.kind == "secret"


@pytest.mark.parametrize("text", ["APExpressRouteGateway is a resource name", "Use the ACME client for TLS"])
def test_a_capitalised_word_that_fits_a_loose_pattern_is_not_a_key(text: str) -> None:
    assert list(providers.matches(text)) == []


def test_detect_secrets_is_imported_on_the_first_scan_not_at_import() -> None:
    code = (
        "import sys, proxy.scanning as s; assert 'detect_secrets' not in sys.modules; "
        "s.scan('hello'); assert 'detect_secrets' in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True, env={"PYTHONPATH": ":".join(sys.path)})
