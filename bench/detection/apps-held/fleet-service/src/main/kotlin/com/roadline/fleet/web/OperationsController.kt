package com.roadline.fleet.web

import com.roadline.fleet.model.ExportRequest
import com.roadline.fleet.model.TelemetryPing
import com.roadline.fleet.model.WebhookRequest
import com.roadline.fleet.service.ExportService
import com.roadline.fleet.service.TelemetryService
import jakarta.servlet.http.HttpServletRequest
import org.springframework.http.HttpHeaders
import org.springframework.http.MediaType
import org.springframework.http.ResponseEntity
import org.springframework.web.bind.annotation.GetMapping
import org.springframework.web.bind.annotation.PathVariable
import org.springframework.web.bind.annotation.PostMapping
import org.springframework.web.bind.annotation.RequestBody
import org.springframework.web.bind.annotation.RequestMapping
import org.springframework.web.bind.annotation.RequestParam
import org.springframework.web.bind.annotation.RestController
import org.springframework.web.multipart.MultipartFile

@RestController
@RequestMapping("/api/ops")
class OperationsController(
    private val exports: ExportService,
    private val telemetry: TelemetryService,
) {

    @PostMapping("/exports")
    fun createExport(@RequestBody body: ExportRequest): Map<String, String> {
        val csv = exports.writeCsv(body.depot)
        val result = if (body.format == "pdf") exports.toPdf(csv) else csv
        return mapOf("file" to result.fileName.toString())
    }

    @PostMapping("/exports/{name}/archive")
    fun archive(@PathVariable name: String): Map<String, String> = mapOf("archive" to exports.compress(name).name)

    @GetMapping("/exports/download")
    fun download(@RequestParam file: String): ResponseEntity<ByteArray> =
        ResponseEntity.ok()
            .header(HttpHeaders.CONTENT_DISPOSITION, "attachment")
            .contentType(MediaType.APPLICATION_OCTET_STREAM)
            .body(exports.openExport(file))

    @GetMapping("/manuals")
    fun manual(@RequestParam name: String): ResponseEntity<ByteArray> =
        ResponseEntity.ok().contentType(MediaType.APPLICATION_PDF).body(exports.openManual(name))

    @PostMapping("/webhooks")
    fun webhook(@RequestBody body: WebhookRequest): ResponseEntity<Void> {
        telemetry.registerWebhook(body.vehicleId, body.callbackUrl)
        return ResponseEntity.noContent().build()
    }

    @GetMapping("/webhooks/test")
    fun testWebhook(@RequestParam url: String): Map<String, String?> = mapOf("response" to telemetry.probe(url))

    @GetMapping("/vehicles/{id}/position")
    fun position(@PathVariable id: Long): ResponseEntity<TelemetryPing> =
        telemetry.latest(id)?.let { ResponseEntity.ok(it) } ?: ResponseEntity.noContent().build()

    @PostMapping("/routes", consumes = [MediaType.MULTIPART_FORM_DATA_VALUE])
    fun uploadRoute(@RequestParam("plan") plan: MultipartFile): Map<String, Int> =
        mapOf("waypoints" to telemetry.importRoutePlan(plan.inputStream).size)

    @PostMapping("/depots/config", consumes = [MediaType.APPLICATION_XML_VALUE])
    fun depotConfig(request: HttpServletRequest): Map<String, Int> =
        mapOf("waypoints" to telemetry.importDepotConfig(request.inputStream).size)

    @PostMapping("/telemetry/replay", consumes = [MediaType.APPLICATION_OCTET_STREAM_VALUE])
    fun replay(request: HttpServletRequest): Map<String, Any> {
        val pings = telemetry.restoreBuffer(request.inputStream)
        return mapOf("received" to pings.size, "stale" to telemetry.stale(pings))
    }
}
