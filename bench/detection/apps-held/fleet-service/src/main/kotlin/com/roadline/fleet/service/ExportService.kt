package com.roadline.fleet.service

import com.roadline.fleet.config.FleetProperties
import com.roadline.fleet.model.Vehicle
import org.slf4j.LoggerFactory
import org.springframework.stereotype.Service
import java.io.File
import java.nio.file.Files
import java.nio.file.Path
import java.nio.file.Paths
import java.time.LocalDate
import java.util.UUID
import java.util.concurrent.TimeUnit

@Service
class ExportService(
    private val props: FleetProperties,
    private val vehicles: VehicleRepository,
) {
    private val log = LoggerFactory.getLogger(ExportService::class.java)
    private val exportRoot: Path = Paths.get(props.exportDir).toAbsolutePath().normalize()

    fun writeCsv(depot: String): Path {
        val rows = vehicles.listByDepot(depot, "plate")
        val name = "fleet-${LocalDate.now()}-${UUID.randomUUID()}.csv"
        val target = exportRoot.resolve(name)
        Files.createDirectories(exportRoot)
        Files.newBufferedWriter(target).use { out ->
            out.write("plate,model,depot,odometer_km,last_serviced\n")
            rows.forEach { out.write(csvLine(it)) }
        }
        return target
    }

    private fun csvLine(v: Vehicle): String =
        listOf(v.plate, v.model, v.depot, v.odometerKm.toString(), v.lastServiced?.toString() ?: "")
            .joinToString(",") { "\"" + it.replace("\"", "\"\"") + "\"" } + "\n"

    fun compress(fileName: String): File {
        val archive = File(props.exportDir, "$fileName.gz")
        val command = "gzip -c ${props.exportDir}/$fileName > ${archive.path}"
        val process = ProcessBuilder("sh", "-c", command).redirectErrorStream(true).start()
        process.waitFor(30, TimeUnit.SECONDS)
        return archive
    }

    fun toPdf(csv: Path): Path {
        val pdf = csv.resolveSibling(csv.fileName.toString().removeSuffix(".csv") + ".pdf")
        val process = ProcessBuilder("/usr/bin/csv2pdf", "--landscape", csv.toString(), pdf.toString()).start()
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroy()
            throw IllegalStateException("pdf conversion timed out")
        }
        return pdf
    }

    fun openExport(name: String): ByteArray {
        val file = File(props.exportDir + "/" + name)
        log.debug("serving export of {} bytes", file.length())
        return file.readBytes()
    }

    fun openManual(name: String): ByteArray {
        val base = Paths.get(props.manualsDir).toAbsolutePath().normalize()
        val requested = base.resolve(name).normalize()
        if (!requested.startsWith(base) || !Files.isRegularFile(requested)) {
            throw NoSuchElementException("manual not found")
        }
        return Files.readAllBytes(requested)
    }

    fun purgeOlderThan(days: Long) {
        val cutoff = System.currentTimeMillis() - TimeUnit.DAYS.toMillis(days)
        Files.list(exportRoot).use { stream ->
            stream.filter { Files.getLastModifiedTime(it).toMillis() < cutoff }.forEach { Files.deleteIfExists(it) }
        }
    }
}
