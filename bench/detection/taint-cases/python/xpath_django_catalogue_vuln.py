# ax-bench: vulnerable CWE-643 — Django catalogue view %-formats the SKU into an XPath query over the product feed
from django.http import Http404, JsonResponse
from django.views.decorators.cache import cache_page
from lxml import etree

CATALOGUE_PATH = "/srv/catalogue/products.xml"
CATALOGUE = etree.parse(CATALOGUE_PATH)


@cache_page(60)
def product_price(request):
    sku = request.GET.get("sku", "")
    nodes = CATALOGUE.xpath("//product[@sku='%s' and @public='true']/price" % sku)  # ax-bench: sink
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
