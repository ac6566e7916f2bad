import { Component, ElementRef, Input, OnDestroy, OnInit, ViewChild } from '@angular/core';
import { ActivatedRoute } from '@angular/router';
import { DomSanitizer, SafeHtml, SafeResourceUrl } from '@angular/platform-browser';
import { ProductService, Product } from './product.service';

const CHECKOUT_ORIGIN = 'https://checkout.example.com';
const PROMO_BANNER = '<strong>Free shipping</strong> on orders over $50';

@Component({
  selector: 'app-product-detail',
  template: `
    <h1>{{ product?.name }}</h1>
    <section class="description" [innerHTML]="description"></section>
    <p class="summary" [innerHTML]="product?.summary"></p>
    <div class="promo" [innerHTML]="promo"></div>
    <iframe *ngIf="videoUrl" [src]="videoUrl" title="Product video"></iframe>
    <div #reviewBox class="review"></div>
    <div #noteBox class="note"></div>
    <button (click)="openVendor()">Vendor site</button>
    <button (click)="openManual()">Manual</button>
  `,
})
export class ProductDetailComponent implements OnInit, OnDestroy {
  @Input() product?: Product;
  @ViewChild('reviewBox', { static: true }) reviewBox!: ElementRef<HTMLDivElement>;
  @ViewChild('noteBox', { static: true }) noteBox!: ElementRef<HTMLDivElement>;
  description?: SafeHtml;
  promo?: SafeHtml;
  videoUrl?: SafeResourceUrl;

  constructor(
    private readonly route: ActivatedRoute,
    private readonly products: ProductService,
    private readonly sanitizer: DomSanitizer,
  ) {}

  ngOnInit(): void {
    const id = this.route.snapshot.paramMap.get('id') ?? '';
    this.products.get(id).subscribe((product) => {
      this.product = product;
      this.description = this.sanitizer.bypassSecurityTrustHtml(product.description);
      this.promo = this.sanitizer.bypassSecurityTrustHtml(PROMO_BANNER);
      this.videoUrl = this.sanitizer.bypassSecurityTrustResourceUrl(product.videoUrl);
      this.reviewBox.nativeElement.innerHTML = product.topReview;
      this.noteBox.nativeElement.textContent = product.note;
    });
    window.addEventListener('message', this.onCheckoutMessage);
    window.addEventListener('message', (event) => {
      this.products.applyCoupon(event.data.coupon);
    });
  }

  ngOnDestroy(): void {
    window.removeEventListener('message', this.onCheckoutMessage);
  }

  private readonly onCheckoutMessage = (event: MessageEvent) => {
    if (event.origin !== CHECKOUT_ORIGIN) return;
    this.products.markPaid(event.data.orderId);
  };

  openVendor(): void {
    window.open(this.product?.vendorUrl, '_blank');
  }

  openManual(): void {
    window.open(this.product?.manualUrl, '_blank', 'noopener,noreferrer');
  }

  sendCart(frame: HTMLIFrameElement): void {
    frame.contentWindow?.postMessage({ cart: this.product?.id, session: sessionStorage.getItem('sid') }, '*');
    frame.contentWindow?.postMessage({ cart: this.product?.id }, CHECKOUT_ORIGIN);
  }
}
