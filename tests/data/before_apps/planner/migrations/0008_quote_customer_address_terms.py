"""A quote's customer address and terms get fields of their own.

Until now the customer field held the name on its first line and the address on the lines
after it. Each quote's lines after the first move into ``customer_address`` (every line kept,
blank ones left out) and ``customer`` keeps the name alone; sent quotes too, so their
documents print the same name and address as before. Backwards, the address is put back
under the name (cut at the 200 characters the old field holds).
"""

from django.db import migrations, models


def split_customer(text):
    """The old customer field as (name, address): the first non-blank line, and the other
    non-blank lines (each stripped) joined by newlines.

    >>> split_customer("ACME Labs\\n 1 Main Street \\r\\n\\nSpringfield")
    ('ACME Labs', '1 Main Street\\nSpringfield')
    >>> split_customer("ACME Labs")
    ('ACME Labs', '')
    """
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    if not lines:
        return "", ""
    return lines[0], "\n".join(lines[1:])


def move_address_out_of_customer(apps, schema_editor):
    Quote = apps.get_model("planner", "Quote")
    for quote in Quote.objects.filter(customer__regex=r"[\r\n]").only(
        "pk", "customer", "customer_address"
    ):
        name, address = split_customer(quote.customer)
        quote.customer = name
        if address:
            quote.customer_address = (
                f"{address}\n{quote.customer_address}" if quote.customer_address else address
            )
        quote.save(update_fields=["customer", "customer_address"])


def put_address_back_into_customer(apps, schema_editor):
    Quote = apps.get_model("planner", "Quote")
    for quote in Quote.objects.exclude(customer_address="").only(
        "pk", "customer", "customer_address"
    ):
        quote.customer = f"{quote.customer}\n{quote.customer_address}"[:200]
        quote.save(update_fields=["customer"])


class Migration(migrations.Migration):
    dependencies = [
        ("planner", "0007_team_margin_floor_quote_approval"),
    ]

    operations = [
        migrations.AddField(
            model_name="quote",
            name="customer_address",
            field=models.TextField(
                blank=True,
                help_text="The customer's postal address, one line per line as printed (any "
                "script; at most 12 lines and 1,000 characters). Printed under the name on the "
                "customer's copy.",
                max_length=1000,
            ),
        ),
        migrations.AddField(
            model_name="quote",
            name="terms",
            field=models.TextField(
                blank=True,
                help_text="Terms for the customer (payment, delivery, warranty), printed on the "
                "customer's copy under Terms; at most 4,000 characters. Optional.",
                max_length=4000,
            ),
        ),
        migrations.AlterField(
            model_name="quote",
            name="customer",
            field=models.CharField(
                help_text="The customer's name, on one line (any script).", max_length=200
            ),
        ),
        migrations.RunPython(move_address_out_of_customer, put_address_back_into_customer),
    ]
