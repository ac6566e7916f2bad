package com.roadline.fleet.web

import com.roadline.fleet.model.ServiceRecord
import com.roadline.fleet.model.Vehicle
import com.roadline.fleet.service.AccountService
import com.roadline.fleet.service.VehicleRepository
import org.springframework.http.HttpStatus
import org.springframework.http.MediaType
import org.springframework.http.ResponseEntity
import org.springframework.web.bind.annotation.GetMapping
import org.springframework.web.bind.annotation.PathVariable
import org.springframework.web.bind.annotation.PostMapping
import org.springframework.web.bind.annotation.RequestBody
import org.springframework.web.bind.annotation.RequestHeader
import org.springframework.web.bind.annotation.RequestMapping
import org.springframework.web.bind.annotation.RequestParam
import org.springframework.web.bind.annotation.RestController
import org.springframework.web.util.HtmlUtils
import java.time.LocalDate

@RestController
@RequestMapping("/api/vehicles")
class VehicleController(
    private val vehicles: VehicleRepository,
    private val accounts: AccountService,
) {

    @GetMapping
    fun list(
        @RequestHeader("Authorization") auth: String,
        @RequestParam(defaultValue = "plate") sort: String,
    ): List<Vehicle> {
        val claims = accounts.verify(auth.removePrefix("Bearer "))
        return vehicles.listByDepot(claims["depot"].toString(), sort)
    }

    @GetMapping("/search")
    fun search(
        @RequestHeader("Authorization") auth: String,
        @RequestParam q: String,
    ): List<Vehicle> {
        val depot = accounts.depotFromHeader(auth.removePrefix("Bearer ")) ?: return emptyList()
        return vehicles.search(depot, q)
    }

    @GetMapping("/{id}")
    fun get(@PathVariable id: Long): ResponseEntity<Vehicle> =
        vehicles.findById(id)?.let { ResponseEntity.ok(it) } ?: ResponseEntity.notFound().build()

    @GetMapping("/{id}/history")
    fun history(
        @PathVariable id: Long,
        @RequestParam(name = "order", defaultValue = "performed_on DESC") order: String,
    ): List<ServiceRecord> = vehicles.history(id, order)

    @PostMapping("/{id}/history")
    fun addRecord(@PathVariable id: Long, @RequestBody body: ServiceRecord): ResponseEntity<Void> {
        if (body.costCents < 0) return ResponseEntity.badRequest().build()
        vehicles.addRecord(body.copy(vehicleId = id, performedOn = body.performedOn.takeIf { !it.isAfter(LocalDate.now()) } ?: LocalDate.now()))
        return ResponseEntity.status(HttpStatus.CREATED).build()
    }

    @GetMapping("/{id}/card", produces = [MediaType.TEXT_HTML_VALUE])
    fun card(@PathVariable id: Long, @RequestParam(defaultValue = "") note: String): String {
        val v = vehicles.findById(id) ?: return "<p>Unknown vehicle</p>"
        val plate = HtmlUtils.htmlEscape(v.plate)
        val model = HtmlUtils.htmlEscape(v.model)
        return "<div class=\"card\"><h2>$plate</h2><p>$model</p><p class=\"note\">$note</p></div>"
    }

    @GetMapping("/{id}/label", produces = [MediaType.TEXT_HTML_VALUE])
    fun label(@PathVariable id: Long, @RequestParam(defaultValue = "") caption: String): String {
        val v = vehicles.findById(id) ?: return "<p>Unknown vehicle</p>"
        return "<figure><figcaption>" + HtmlUtils.htmlEscape(caption) + "</figcaption><b>" + HtmlUtils.htmlEscape(v.plate) + "</b></figure>"
    }

    @GetMapping("/overdue")
    fun overdue(): Map<String, Int> = mapOf("overdue" to vehicles.countOverdue())
}
