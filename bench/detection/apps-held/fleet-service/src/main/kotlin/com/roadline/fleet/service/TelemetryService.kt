package com.roadline.fleet.service

import com.roadline.fleet.config.FleetProperties
import com.roadline.fleet.model.TelemetryPing
import org.springframework.beans.factory.annotation.Qualifier
import org.springframework.stereotype.Service
import org.springframework.web.client.RestTemplate
import org.w3c.dom.Element
import java.io.InputStream
import java.io.ObjectInputStream
import java.net.URI
import java.time.Instant
import javax.xml.XMLConstants
import javax.xml.parsers.DocumentBuilderFactory

@Service
class TelemetryService(
    private val props: FleetProperties,
    private val rest: RestTemplate,
    @Qualifier("telemetryTemplate") private val telemetryRest: RestTemplate,
) {
    private val webhooks = mutableMapOf<Long, String>()

    fun latest(vehicleId: Long): TelemetryPing? =
        telemetryRest.getForObject("${props.telemetryBaseUrl}/v2/vehicles/$vehicleId/latest", TelemetryPing::class.java)

    fun registerWebhook(vehicleId: Long, url: String) {
        val host = URI(url).host ?: throw IllegalArgumentException("callback needs a host")
        require(host in props.partnerHosts) { "callback host is not a registered partner" }
        webhooks[vehicleId] = url
    }

    fun notifyPartner(vehicleId: Long, ping: TelemetryPing) {
        val url = webhooks[vehicleId] ?: return
        rest.postForLocation(url, ping)
    }

    fun probe(callbackUrl: String): String? = rest.getForObject(callbackUrl, String::class.java)

    fun importRoutePlan(xml: InputStream): List<Pair<Double, Double>> {
        val factory = DocumentBuilderFactory.newInstance()
        factory.isNamespaceAware = true
        val doc = factory.newDocumentBuilder().parse(xml)
        return waypoints(doc.documentElement)
    }

    fun importDepotConfig(xml: InputStream): List<Pair<Double, Double>> {
        val factory = DocumentBuilderFactory.newInstance()
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true)
        factory.setAttribute(XMLConstants.ACCESS_EXTERNAL_DTD, "")
        val doc = factory.newDocumentBuilder().parse(xml)
        return waypoints(doc.documentElement)
    }

    private fun waypoints(root: Element): List<Pair<Double, Double>> {
        val nodes = root.getElementsByTagName("wpt")
        return (0 until nodes.length).map {
            val el = nodes.item(it) as Element
            el.getAttribute("lat").toDouble() to el.getAttribute("lon").toDouble()
        }
    }

    @Suppress("UNCHECKED_CAST")
    fun restoreBuffer(body: InputStream): List<TelemetryPing> {
        ObjectInputStream(body).use { input ->
            return input.readObject() as List<TelemetryPing>
        }
    }

    fun stale(pings: List<TelemetryPing>, now: Instant = Instant.now()): List<Long> =
        pings.filter { it.recordedAt.isBefore(now.minusSeconds(900)) }.map { it.vehicleId }.distinct()
}
