# ax-bench: safe CWE-643 — Django catalogue view passes the SKU as an XPath variable ($sku) instead of formatting it in
from django.http import Http404, JsonResponse
from django.views.decorators.cache import cache_page
from lxml import etree

CATALOGUE_PATH = "/srv/catalogue/products.xml"
CATALOGUE = etree.parse(CATALOGUE_PATH)


@cache_page(60)
def product_price(request):
    sku = request.GET.get("sku", "")
    nodes = CATALOGUE.xpath("//product[@sku=$sku and @public='true']/price", sku=sku)  # ax-bench: sink
    if not nodes:
        raise Http404("unknown product")
    price = nodes[0]
    return JsonResponse(
        {
            "sku": sku,
            "price": price.text,
            "currency": price.get("currency", "EUR"),
        }
    )
